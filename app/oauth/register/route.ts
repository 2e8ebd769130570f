import { corsPreflight, handleRegistration } from "@/server/oauth";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/oauth/register", handleRegistration);
export const OPTIONS = traced("/oauth/register", corsPreflight);
