import { corsPreflight, handleAuthorizationServerMetadata } from "@/server/oauth";

// Served at /.well-known/oauth-authorization-server through a rewrite in next.config.mjs
// (the App Router does not route folders whose name starts with a dot).
export const dynamic = "force-dynamic";

export const GET = handleAuthorizationServerMetadata;
export const OPTIONS = corsPreflight;
