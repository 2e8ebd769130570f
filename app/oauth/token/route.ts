import { corsPreflight, handleToken } from "@/server/oauth";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/oauth/token", handleToken);
export const OPTIONS = traced("/oauth/token", corsPreflight);
