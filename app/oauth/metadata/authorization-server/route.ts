import { corsPreflight, handleAuthorizationServerMetadata } from "@/server/oauth";
import { traced } from "@/server/api";

// Served at /.well-known/oauth-authorization-server through a rewrite in next.config.mjs
// (the App Router does not route folders whose name starts with a dot).
export const dynamic = "force-dynamic";

export const GET = traced("/.well-known/oauth-authorization-server", handleAuthorizationServerMetadata);
export const OPTIONS = traced("/.well-known/oauth-authorization-server", corsPreflight);
