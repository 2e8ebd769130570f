import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/router";
import type { Context } from "@/server/trpc";
import { admitRequest } from "./gate";
import { errorResponse } from "./errors";

/** tRPC for typed callers at /api/trpc, behind the same admission gate as REST. */
export async function handleTrpcRequest(req: Request): Promise<Response> {
  let admission;
  try {
    admission = await admitRequest(req);
  } catch (error) {
    return errorResponse(error);
  }
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: (): Context => ({ req, identity: admission.identity, isForm: false, response: { headers: {} } }),
  });
  for (const [name, value] of Object.entries(admission.headers)) response.headers.set(name, value);
  return response;
}
