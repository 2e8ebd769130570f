import type { InngestFunction } from "inngest";
import { serve } from "inngest/next";
import { inngestConfigured } from "./mode";
import { inngest } from "./client";

export type ServeHandler = (request: Request) => Promise<Response>;

/**
 * The SDK's serve handler for a set of functions: /api/inngest serves the production registry with
 * it, and the embedded executor calls it in-process. In embedded mode unsigned syncs are refused
 * too, so nothing reaches it without the process's signing key.
 */
export function serveFunctions(functions: InngestFunction.Any[]): {
  GET: ServeHandler;
  POST: ServeHandler;
  PUT: ServeHandler;
} {
  const handler = serve({
    client: inngest,
    functions,
    servePath: "/api/inngest",
    ...(inngestConfigured() ? {} : { enableUnauthedSync: false }),
  });
  return {
    GET: (req) => handler.GET(req as never, undefined),
    POST: (req) => handler.POST(req as never, undefined),
    PUT: (req) => handler.PUT(req as never, undefined),
  };
}
