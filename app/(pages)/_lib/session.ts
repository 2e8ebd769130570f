import "server-only";
import { cache } from "react";
import { headers } from "next/headers";
import { refresh } from "next/cache";
import { forbidden, notFound, redirect } from "next/navigation";
import { pageAction, pageCaller, rateLimitedPageFor, refusalOf, type PageCaller } from "@/server/api";
import type { Identity, UserIdentity } from "@/server/auth";

/** The browser's request as the API would see it (the same cookies and Origin), for the admission gate. */
async function currentRequest(method: "GET" | "POST"): Promise<Request> {
  const incoming = await headers();
  const host = incoming.get("host") ?? "localhost";
  return new Request(`http://${host}/`, { method, headers: new Headers(incoming) });
}

/**
 * The caller and its API, once per page render (layout and page share it). A caller over the rate
 * limit is sent to the 429 page (a render cannot answer 429 itself).
 */
export const session = cache(async (): Promise<{ identity: Identity; api: PageCaller }> => {
  try {
    return await pageCaller(await currentRequest("GET"));
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 429) redirect(rateLimitedPageFor(Number(refusal.headers["Retry-After"])));
    throw error;
  }
});

/** A signed-in user, or a redirect to the sign-in page. */
export async function requireUser(): Promise<{ identity: UserIdentity; api: PageCaller }> {
  const { identity, api } = await session();
  if (identity.kind !== "user") redirect("/login");
  return { identity, api };
}

/**
 * Reads through the API and turns its refusals into pages: 404 and 410 are the not-found page,
 * 403 the forbidden page, 401 the sign-in page.
 */
export async function read<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 404 || refusal.status === 410 || refusal.status === 400) notFound();
    if (refusal.status === 403) forbidden();
    if (refusal.status === 401) redirect("/login");
    throw error;
  }
}

/** A server action's write whose answer the page shows (no redirect): the value, or the API's refusal message. */
export async function attempt<T>(
  run: (api: PageCaller, identity: Identity) => Promise<T>,
): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await pageAction(await currentRequest("POST"), run) };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status >= 500) throw error;
    return { error: refusal.message };
  }
}

/**
 * Whether the page's script sent this action from the page `target` names (its #fragment aside).
 * Then a refresh shows the write in place; a redirect would not: Next.js answers an action's
 * redirect by remounting the page (its redirect boundary), which drops what the reader was typing
 * in the page's other forms meanwhile. A form posted without JavaScript always gets its redirect
 * (post/redirect/get), and so does a browser that sends no Referer.
 */
async function showingAlready(target: string): Promise<boolean> {
  const incoming = await headers();
  const referer = incoming.get("referer");
  if (!incoming.has("next-action") || !referer || !URL.canParse(referer)) return false;
  const shown = new URL(referer);
  const wanted = new URL(target, shown);
  return wanted.origin === shown.origin && wanted.pathname === shown.pathname && wanted.search === shown.search;
}

/**
 * A server action's write through the API; afterwards the browser shows `back` (or `done`), with
 * the refusal's message and code in the query string when the API refused.
 */
export async function write(
  back: string,
  run: (api: PageCaller, identity: Identity) => Promise<unknown>,
  done?: string,
): Promise<void> {
  let target = done ?? back;
  try {
    await pageAction(await currentRequest("POST"), run);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status >= 500) throw error;
    const query = new URLSearchParams({ error: refusal.message, ...(refusal.code ? { code: refusal.code } : {}) });
    // Why a merge was refused: protection reasons, the conflict to resolve and its files.
    const { reasons, conflictId, conflictingFiles } = refusal.extra as {
      reasons?: string[];
      conflictId?: string;
      conflictingFiles?: string[];
    };
    for (const reason of reasons ?? []) query.append("reason", reason);
    for (const file of conflictingFiles ?? []) query.append("file", file);
    if (conflictId) query.set("conflict", conflictId);
    const [path, hash] = back.split("#", 2);
    target = `${path}${path.includes("?") ? "&" : "?"}${query}${hash ? `#${hash}` : ""}`;
  }
  // The browser takes the page as it is after the write, whether it stays on it (below) or is sent
  // to it with another #fragment (a redirect that, with JavaScript on, would only scroll).
  refresh();
  if (await showingAlready(target)) return;
  redirect(target);
}
