import type { Identity } from "@/server/auth";
import type { Context } from "@/server/trpc";
import { ifNoneMatchMatches, versionEtag } from "@/server/http";
import { restInputOf, type RestProcedure } from "./procedures";

/**
 * A conditional GET (If-None-Match) of a route whose meta declares its `ReadVersion`: when the caller
 * holds the current ETag, that ETag (to answer 304 with), found without dispatching through tRPC (its middleware,
 * validation and error paths cost more than reading the version). Anything else (another ETag,
 * input the schema refuses, a refusal such as 404) is left to the dispatch, which answers it as it
 * answers every call. Only public procedures: the version function checks the caller's access
 * itself, and no procedure-kind middleware is skipped.
 */
export async function notModifiedBeforeDispatch(
  req: Request,
  apiPath: string,
  query: URLSearchParams,
  procedure: RestProcedure | undefined,
  identity: Identity,
): Promise<string | undefined> {
  const version = procedure?.meta.etag;
  if (
    typeof version !== "function" ||
    procedure?.meta.access !== "public" ||
    req.method !== "GET" ||
    !req.headers.has("if-none-match")
  )
    return undefined;
  const input = await restInputOf(procedure, apiPath, query);
  if (!input) return undefined;
  let parts: string[];
  try {
    parts = await version(identity, input.value as never);
  } catch {
    return undefined;
  }
  const etag = versionEtag(req, parts);
  return ifNoneMatchMatches(req, etag) ? etag : undefined;
}

/**
 * The answer of a public GET that declares its resolver (`meta.direct`), called here with the input
 * its schema parsed, or undefined when the dispatch answers: input the schema refuses (the dispatch
 * says why, as for every route) and a workspace key (whose scope the procedures' middleware checks).
 */
export async function answerDirectRead(
  req: Request,
  apiPath: string,
  query: URLSearchParams,
  procedure: RestProcedure | undefined,
  ctx: Context,
): Promise<{ body: unknown } | undefined> {
  const direct = procedure?.meta.direct;
  if (!direct || procedure?.meta.access !== "public" || req.method !== "GET" || ctx.identity.kind === "workspace-key")
    return undefined;
  const input = await restInputOf(procedure, apiPath, query);
  return input ? { body: await direct(ctx, input.value as never) } : undefined;
}
