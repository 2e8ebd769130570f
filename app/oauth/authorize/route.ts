import { handleAuthorizationRequest, handleConsent } from "@/server/oauth";

// OAuth for MCP clients: the consent page (server-rendered HTML, strict CSP) and its form's answer.
export const dynamic = "force-dynamic";

export const GET = handleAuthorizationRequest;
export const POST = handleConsent;
