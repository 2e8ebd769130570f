import { beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { withEnv } from "@/tests/support/env";
import { eventKinds, importStatus, projectBase, projectRow, refsOf, requestImport, uniqueName, useStubProvider } from "./support";

useTestEnvironment();
useTestJobs();
const stub = useStubProvider();

type User = Awaited<ReturnType<typeof createTestUser>>;
let alice: User;
let bob: User;
let upstream: string[];

beforeAll(async () => {
  alice = await createTestUser();
  bob = await createTestUser();
  upstream = stub.current.seed("octo", "hello", [{ "README.md": "# hello\n" }, { "src/a.txt": "a\n" }, { "src/b.txt": "b\n" }]);
});

describe("POST /import", () => {
  it("creates the project, queues a durable import and completes it with git's progress, the default branch and project.imported", async () => {
    const slug = uniqueName("hello");
    const res = await requestImport(alice, slug, { url: `${stub.current.url}/octo/hello.git` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ namespace: alice.username, slug, path: `@${alice.username}/${slug}`, status: "queued", visibility: "private" });
    expect(res.body.source).toEqual({ provider: "github", owner: "octo", repo: "hello", url: `${stub.current.url}/octo/hello`, branch: "main" });
    expect(res.text).not.toContain(stub.current.token!);

    const queued = await importStatus(alice, slug);
    expect(queued.body).toMatchObject({ importId: res.body.importId, status: "queued", phase: null, progress: null, failureCategory: null });

    await drainJobs();
    const done = await importStatus(alice, slug);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "completed", phase: null, failureCategory: null, error: null });
    expect(done.body.progress.totalObjects).toBeGreaterThan(0);
    expect(done.body.progress).toMatchObject({ receivedObjects: done.body.progress.totalObjects, percent: 100 });
    expect(done.body.completedAt).toBeTruthy();

    expect((await refsOf(alice.username, slug)).branches).toEqual([{ name: "main", oid: upstream[2] }]);
    const files = await call("GET", `${projectBase(alice.username, slug)}/files`, { token: alice.token });
    expect(files.body.files.sort()).toEqual(["README.md", "src/a.txt", "src/b.txt"]);
    const project = await call("GET", projectBase(alice.username, slug), { token: alice.token });
    expect(project.body).toMatchObject({ defaultBranch: "main", source: { provider: "github", url: `${stub.current.url}/octo/hello` } });
    const kinds = await eventKinds(project.body.id);
    expect(kinds.map((event) => event.kind)).toEqual(["project.created", "project.imported"]);
    expect(kinds[1].data).toMatchObject({ importId: res.body.importId, commit: upstream[2], branch: "main" });
    const sync = await call("GET", `${projectBase(alice.username, slug)}/sync/status`, { token: alice.token });
    expect(sync.body).toMatchObject({ status: "idle", lastSyncedCommit: upstream[2], hasUpdates: false, commitsBehind: 0 });
  });
});
