import { createOpenApiNextHandler } from "trpc-to-openapi";
import { appRouter } from "@/server/api/router";
import type { Context } from "@/server/trpc";

/**
 * Runs one REST call through trpc-to-openapi's router. Its fetch adapter rebuilds the handler on
 * every request (and, outside production, regenerates the whole OpenAPI document to validate the
 * router: ~25 ms a call), so the handler is built once here with the Next adapter, which accepts
 * any request object whose `url`/`query` it can rewrite; a Proxy over the Web Request provides that.
 */
export interface DispatchResult {
  status: number;
  body: string;
  failure?: unknown;
}

interface PendingCall {
  ctx: Context;
  failure?: unknown;
}

const calls = new WeakMap<object, PendingCall>();

function buildHandler() {
  return createOpenApiNextHandler({
    router: appRouter,
    createContext: ({ req }: { req: object }) => calls.get(req)!.ctx,
    onError: ({ req, error }: { req: object; error: unknown }) => {
      const call = calls.get(req);
      if (call) call.failure = error;
    },
  }) as unknown as (req: object, res: object) => Promise<void>;
}

const holder = globalThis as unknown as { __svcOpenApiHandler?: ReturnType<typeof buildHandler> };

/** `apiPath` is the path below /api (e.g. "/projects/@a/b"); `body` the parsed JSON input, if any. */
export function dispatchOpenApi(
  request: Request,
  apiPath: string,
  search: string,
  body: unknown,
  ctx: Context,
): Promise<DispatchResult> {
  holder.__svcOpenApiHandler ??= buildHandler();
  const handler = holder.__svcOpenApiHandler;
  let url = apiPath + search;
  // The adapter reads `query.trpc` for the path, then sets `url` and reads the query from it.
  let query: unknown = { trpc: apiPath.replace(/^\/+/, "") };
  // The input is already parsed (forms included), so the adapter always sees JSON.
  const headers = new Headers(request.headers);
  headers.set("content-type", "application/json");
  const proxy = new Proxy(request, {
    get(target, prop) {
      if (prop === "url") return url;
      if (prop === "query") return query;
      if (prop === "body") return body;
      if (prop === "headers") return headers;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, prop, value) {
      if (prop === "url") {
        url = String(value) + search;
        query = undefined;
        return true;
      }
      if (prop === "query") {
        query = value;
        return true;
      }
      return false;
    },
  });
  const call: PendingCall = { ctx };
  calls.set(proxy, call);
  return new Promise<DispatchResult>((resolve, reject) => {
    let status = 200;
    const res = {
      get statusCode() {
        return status;
      },
      set statusCode(code: number) {
        status = code;
      },
      setHeader() {},
      end(text?: string) {
        resolve({ status, body: text ?? "", failure: call.failure });
      },
      once() {},
    };
    handler(proxy, res).catch(reject);
  });
}
