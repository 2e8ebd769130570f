import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/router";
import { db } from "@/server/db/client";
import { withEnv } from "@/tests/support/env";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { routeModuleFor, TEST_ORIGIN } from "@/tests/support/http";
import { createTestSession } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment({ RATE_LIMIT_PER_MINUTE: "1000" });

type Handler = (req: Request) => Promise<Response>;

/** @trpc/client against the /api/trpc route handler, in-process; every response is kept for its headers. */
function clientFor(headers: Record<string, string>, options: { batch?: boolean } = {}) {
  const responses: Response[] = [];
  const fetchInProcess = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await (routeModuleFor(new URL(request.url).pathname)[request.method] as Handler)(request);
    responses.push(response.clone());
    return response;
  };
  const link = (options.batch ? httpBatchLink : httpLink)({
    url: `${TEST_ORIGIN}/api/trpc`,
    headers,
    fetch: fetchInProcess,
  });
  return { client: createTRPCClient<AppRouter>({ links: [link] }), responses };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function failureOf(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCClientError)) throw new Error(`expected a TRPCClientError, got ${String(error)}`);
  return error;
}

describe("/api/trpc with @trpc/client", () => {
  it("answers queries, single and batched", async () => {
    const alice = await createTestUser();
    const { client } = clientFor(bearer(alice.token), { batch: true });
    const [me, projects] = await Promise.all([client.users.me.query({}), client.projects.list.query({})]);
    expect(me.username).toBe(alice.username);
    expect(projects.projects).toEqual([]);
  });

  it("a missing project is NOT_FOUND with status 404, not an internal error", async () => {
    const alice = await createTestUser();
    const { client, responses } = clientFor(bearer(alice.token));
    const error = await failureOf(client.projects.get.query({ namespace: "@nobody", slug: "none" }));
    expect(error.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    expect(responses.at(-1)?.status).toBe(404);
  });

  it("pre-routing refusals (401, 429) arrive in a shape the client reads, with their headers", async () => {
    const anonymousError = await failureOf(clientFor({}).client.users.me.query({}));
    expect(anonymousError.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
    const badToken = clientFor(bearer("svc_user_nope"));
    expect((await failureOf(badToken.client.users.me.query({}))).data?.httpStatus).toBe(401);
    expect(badToken.responses.at(-1)?.headers.get("www-authenticate")).toMatch(/^Bearer/);

    // A small limit: a thousand requests to reach the file's took 30 s on a loaded machine.
    await withEnv({ RATE_LIMIT_PER_MINUTE: "5" }, async () => {
      const bob = await createTestUser();
      const limited = clientFor(bearer(bob.token));
      let refusal: TRPCClientError<AppRouter> | undefined;
      for (let i = 0; i < 6 && !refusal; i++) {
        refusal = await limited.client.users.me.query({}).then(
          () => undefined,
          (e: TRPCClientError<AppRouter>) => e,
        );
      }
      expect(refusal?.data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429 });
      expect(limited.responses.at(-1)?.headers.get("retry-after")).toMatch(/^\d+$/);
    });
  });

  it("keeps the procedures' headers: a minted token's plaintext goes out with Cache-Control: no-store", async () => {
    const { cookie } = await createTestSession("trpc-minter");
    const { client, responses } = clientFor({ cookie, origin: TEST_ORIGIN });
    const created = await client.users.createToken.mutate({ name: "ci", scope: "read" });
    expect(created.plaintext).toMatch(/^svc_user_/);
    expect(responses.at(-1)?.headers.get("cache-control")).toBe("no-store");
    expect(responses.at(-1)?.headers.get("x-ratelimit-limit")).toBe("1000");
  });

  it("publishes the request's events when it ends, not at the next sweep", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "evented" });
    const { client } = clientFor(bearer(alice.token));
    const [namespace, slug] = project.path.split("/");
    await client.issues.create.mutate({ namespace, slug, title: "over trpc" });
    const pending = await (
      await db()
    ).domainEvent.count({ where: { projectId: project.id, kind: "issue.opened", dispatchedAt: null } });
    expect(pending).toBe(0);
    expect(await (await db()).domainEvent.count({ where: { projectId: project.id, kind: "issue.opened" } })).toBe(1);
  });

  it("honours the administrator key for administrator procedures only", async () => {
    const admin = clientFor({ "x-admin-api-key": TEST_ADMIN_KEY });
    const created = await admin.client.admin.createUser.mutate({ username: "made-over-trpc" });
    expect(created.user.username).toBe("made-over-trpc");
    expect((await failureOf(admin.client.users.me.query({}))).data?.httpStatus).toBe(401);
  });
});
