import { corsPreflight, handleProtectedResourceMetadata } from "@/server/oauth";

// Served at /.well-known/oauth-protected-resource (and .../mcp) through a rewrite in next.config.mjs.
export const dynamic = "force-dynamic";

export const GET = handleProtectedResourceMetadata;
export const OPTIONS = corsPreflight;
