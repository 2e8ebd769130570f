import { appRouter } from "@/server/api";
import type { Identity } from "@/server/auth";
import { createCallerFactory, type Context } from "@/server/trpc";

const callerOf = createCallerFactory(appRouter);

export type ApiCaller = ReturnType<typeof callerOf>;

/** The procedures as the REST pipeline would run them for this caller (same context shape, JSON input). */
export function apiCaller(req: Request, identity: Identity): ApiCaller {
  const ctx: Context = { req, identity, isForm: false, response: { headers: {} } };
  return callerOf(ctx);
}
