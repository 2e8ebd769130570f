import { handleAuthorizationRequest, handleConsent } from "@/server/oauth";
import { traced } from "@/server/api";

// OAuth for MCP clients: the consent page (server-rendered HTML, strict CSP) and its form's answer.
export const dynamic = "force-dynamic";

export const GET = traced("/oauth/authorize", handleAuthorizationRequest);
export const POST = traced("/oauth/authorize", handleConsent);
