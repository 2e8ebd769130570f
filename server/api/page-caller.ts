import { admitRequest, anonymous, type Identity } from "@/server/auth";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";
import { appRouter } from "@/server/api/router";
import { answeredError, type Context } from "@/server/trpc";
import { type HttpError, toHttpError } from "@/server/http";

export type PageCaller = ReturnType<typeof appRouter.createCaller>;

/**
 * The web pages' way in: the same admission gate and procedures as /api, called in-process, so a
 * page sees exactly what the API would answer this browser. A stale session cookie reads as
 * anonymous (the page then offers sign-in) rather than failing every page.
 */
export async function pageCaller(req: Request): Promise<{ identity: Identity; api: PageCaller }> {
  let identity: Identity = anonymous;
  try {
    identity = (await admitRequest(req)).identity;
  } catch (error) {
    const refusal = answeredError(error);
    if (refusal?.status !== 401) throw error;
  }
  const ctx: Context = { req, identity, isForm: false, response: { headers: {} } };
  return { identity, api: appRouter.createCaller(ctx) };
}

/** Runs a page's write (a server action) and publishes the events it recorded, as /api does after a request. */
export async function pageAction<T>(
  req: Request,
  write: (api: PageCaller, identity: Identity) => Promise<T>,
): Promise<T> {
  const identity = (await admitRequest(req)).identity;
  const ctx: Context = { req, identity, isForm: false, response: { headers: {} } };
  const { value, recorded } = await trackRecordedEvents(() => write(appRouter.createCaller(ctx), identity));
  if (recorded) await publishAfterCommit();
  return value;
}

/** What the API would have answered for a failed call (status, message, code); unexpected failures are 500s. */
export function refusalOf(error: unknown): HttpError {
  return toHttpError(error);
}
