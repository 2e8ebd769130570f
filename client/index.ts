// The typed SDK: openapi-fetch over the types openapi-typescript generates from the service's
// OpenAPI document (`npm run openapi` regenerates client/openapi.json and client/schema.d.ts).
//
//   const svc = createSvcClient({ baseUrl: "http://localhost:3000", token: "svc_user_…" });
//   const { data, error, response } = await svc.GET("/api/projects/{namespace}/{slug}", {
//     params: { path: { namespace: "@alice", slug: "demo" } },
//   });
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
export { watchChange } from "./watch-change.js";
export type { ChangeEvent, ChangeState, WatchChangeOptions } from "./watch-change.js";
export type SvcClient = Client<paths>;
/** The wire shape of every error: `{error, code?}` plus route-specific fields. */
export type SvcError = components["schemas"]["Error"];

export interface SvcClientOptions {
  /** The service's address, e.g. http://localhost:3000 (no /api: the paths carry it). */
  baseUrl: string;
  /** A bearer credential: a user token, an OAuth grant or an agent token. */
  token?: string;
  fetch?: typeof globalThis.fetch;
}

export function createSvcClient({ baseUrl, token, fetch }: SvcClientOptions): SvcClient {
  const client = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ""), ...(fetch ? { fetch } : {}) });
  if (token) {
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", `Bearer ${token}`);
        return request;
      },
    });
  }
  return client;
}

/** `@alice/demo` (or `alice/demo`) as the `{namespace}` and `{slug}` path params. */
export function projectParams(project: string): { namespace: string; slug: string } {
  const match = /^@?([^/@]+)\/([^/]+)$/.exec(project);
  if (!match) throw new Error(`A project is @namespace/slug, not ${JSON.stringify(project)}`);
  return { namespace: `@${match[1]}`, slug: match[2] };
}
