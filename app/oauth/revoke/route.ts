import { corsPreflight, handleRevocation } from "@/server/oauth";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/oauth/revoke", handleRevocation);
export const OPTIONS = traced("/oauth/revoke", corsPreflight);
