import { afterAll, beforeAll, expect } from "vitest";
import { db } from "@/server/db/client";
import { openProjectRepo, listRefs } from "@/server/git";
import { startStubProvider, type StubProvider } from "@/tests/support/provider-stub";
import { call } from "@/tests/support/http";

/** A stub provider for the file, with GITHUB_URL/GITHUB_API_URL/GITHUB_TOKEN pointing at it (set in beforeAll, kept for the file). */
export function useStubProvider(): { readonly current: StubProvider } {
  const state = {} as { current: StubProvider };
  beforeAll(async () => {
    state.current = await startStubProvider();
    Object.assign(process.env, {
      GITHUB_URL: state.current.url,
      GITHUB_API_URL: state.current.apiUrl,
      GITHUB_TOKEN: state.current.token,
      PROVIDER_TIMEOUT_SECONDS: "2",
    });
  });
  afterAll(async () => {
    await state.current?.close();
  });
  return state;
}

let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

export const projectBase = (namespace: string, slug: string) => `/api/projects/@${namespace}/${slug}`;

/** POST .../import into the caller's namespace. */
export const requestImport = (user: { username: string; token: string }, slug: string, body: Record<string, unknown>) =>
  call("POST", `${projectBase(user.username, slug)}/import`, { token: user.token, body });

export const importStatus = (user: { username: string; token: string }, slug: string) =>
  call("GET", `${projectBase(user.username, slug)}/import/status`, { token: user.token });

export async function projectRow(namespace: string, slug: string) {
  return (await db()).project.findUniqueOrThrow({ where: { namespace_slug: { namespace, slug } } });
}

/** The project repository's branches and tags (empty for an import that did not complete). */
export async function refsOf(namespace: string, slug: string) {
  return listRefs(openProjectRepo((await projectRow(namespace, slug)).id));
}

export async function eventKinds(projectId: string) {
  const events = await (await db()).domainEvent.findMany({ where: { projectId }, orderBy: { seq: "asc" } });
  return events.map((event) => ({ kind: event.kind, data: event.data as Record<string, unknown> }));
}

/** Polls `check` until it returns a value (bounded: fails after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) expect.fail("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
