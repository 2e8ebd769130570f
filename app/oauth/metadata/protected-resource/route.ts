import { corsPreflight, handleProtectedResourceMetadata } from "@/server/oauth";
import { traced } from "@/server/api";

// Served at /.well-known/oauth-protected-resource (and .../mcp) through a rewrite in next.config.mjs.
export const dynamic = "force-dynamic";

export const GET = traced("/.well-known/oauth-protected-resource", handleProtectedResourceMetadata);
export const OPTIONS = traced("/.well-known/oauth-protected-resource", corsPreflight);
