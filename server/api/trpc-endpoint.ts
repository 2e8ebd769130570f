import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { type Admission, admitRequest, anonymous } from "@/server/auth";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";
import { appRouter } from "@/server/api/router";
import { answeredError, asTrpcError, type Context } from "@/server/trpc";
import { type HttpError, requestIdOf, toHttpError } from "@/server/http";
import { noWaits, withRequestLog } from "@/server/log";
import { recordRequest } from "./request-log";
import { isAdminProcedure } from "./procedures";
import { instrumentRequest } from "@/server/metrics";

/** The administrator key is honoured for administrator procedures only, as REST honours it under /api/admin. */
function onlyAdminProcedures(req: Request): boolean {
  const names = new URL(req.url).pathname.replace(/^\/api\/trpc\/?/, "").split(",");
  return names.every(isAdminProcedure);
}

/**
 * tRPC for typed callers at /api/trpc: the REST pipeline's admission gate (its failures answered in
 * tRPC's error shape, so @trpc/client reads them), domain errors with their own status, the
 * procedures' response headers, and the request's events published when it ends.
 */
export async function handleTrpcRequest(req: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdOf(req);
  let identity = "anonymous";
  const waits = noWaits();
  const response = await instrumentRequest(
    req,
    () => "/api/trpc",
    () =>
      withRequestLog(
        requestId,
        async () => {
          const answered = await answerTrpcRequest(req);
          identity = answered.identity;
          return answered.response;
        },
        waits,
      ),
  );
  response.headers.set("X-Request-Id", requestId);
  recordRequest({
    requestId,
    method: req.method.toUpperCase(),
    route: "/api/trpc/{procedures}",
    identity,
    status: response.status,
    durationMs: performance.now() - started,
    waits,
  });
  return response;
}

async function answerTrpcRequest(req: Request): Promise<{ response: Response; identity: string }> {
  let admission: Admission | undefined;
  let refusal: HttpError | undefined;
  try {
    admission = await admitRequest(req, { allowAdminKey: onlyAdminProcedures(req) });
  } catch (error) {
    refusal = toHttpError(error);
  }
  const ctx: Context = { req, identity: admission?.identity ?? anonymous, isForm: false, response: { headers: {} } };
  const { value: response, recorded } = await trackRecordedEvents(() =>
    fetchRequestHandler({
      endpoint: "/api/trpc",
      req,
      router: appRouter,
      createContext: (): Context => {
        if (refusal) throw asTrpcError(refusal);
        return ctx;
      },
      responseMeta: ({ errors, info }) => {
        const causes = errors.flatMap((error) => answeredError(error.cause) ?? []);
        const headers = Object.assign(
          {},
          admission?.headers,
          ctx.response.headers,
          ...causes.map((cause) => cause.headers),
        ) as Record<string, string>;
        // One failed call answers its domain status exactly (410 has no tRPC code of its own).
        const status = !info?.isBatchCall && causes.length === 1 ? causes[0].status : undefined;
        return { headers, status };
      },
    }),
  );
  if (recorded) await publishAfterCommit();
  return { response, identity: ctx.identity.kind };
}
