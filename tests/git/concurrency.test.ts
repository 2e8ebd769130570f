import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";
import { GitClient, startTestServer, withToken, type TestServer } from "./support";

useTestEnvironment();

let server: TestServer;
let git: GitClient;

beforeAll(async () => {
  server = await startTestServer();
  git = new GitClient();
});

afterAll(async () => {
  await server?.close();
  git?.cleanup();
});

const PUSHERS = 3;
const ROUNDS = 3;
const API_COMMITS = 8;
// Many git processes on a shared 2-core machine: generous, never a timing assertion.
const TIMEOUT_MS = 240_000;
const ATTEMPTS_MAX = 40;

/** A pusher's rejections are races lost (the branch moved); anything else is a failure. */
const LOST_RACE = /stale info|fetch first|non-fast-forward|\[rejected\]/;

/**
 * One client that lands `ROUNDS` commits on `main` of `remote`: fetch, commit on the fetched tip,
 * push; on a lost race, again. Returns the commits the server accepted.
 */
async function pusher(remote: string, id: number): Promise<string[]> {
  const cwd = git.dir(`pusher-${id}`);
  await git.ok(["clone", "-q", remote, cwd]);
  const accepted: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let attempt = 0; ; attempt++) {
      expect(attempt, `pusher ${id} round ${round} never landed`).toBeLessThan(ATTEMPTS_MAX);
      await git.ok(["fetch", "-q", "origin"], { cwd });
      await git.ok(["reset", "-q", "--hard", "origin/main"], { cwd });
      const sha = await git.commit(
        cwd,
        { [`pusher-${id}/round-${round}.txt`]: `${id}/${round}/${attempt}\n` },
        `pusher ${id} round ${round}`,
      );
      const push = await git.run(["push", "--porcelain", "origin", "HEAD:main"], { cwd });
      if (push.code === 0) {
        accepted.push(sha);
        break;
      }
      expect(push.stdout + push.stderr).toMatch(LOST_RACE);
    }
  }
  return accepted;
}

async function apiCommitter(token: string, projectId: string, workspace: string): Promise<string[]> {
  const accepted: string[] = [];
  for (let i = 0; i < API_COMMITS; i++) {
    const res = await call("POST", `/api/workspaces/${workspace}/commit`, {
      token,
      body: { projectId, message: `api commit ${i}`, files: { [`api/${i}.txt`]: `${i}\n` } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    accepted.push(res.body.commit);
  }
  return accepted;
}

describe("concurrent writers on one branch", () => {
  it(
    "parallel git pushes and API commits to one workspace branch: every accepted update is in the history",
    async () => {
      const alice = await createTestUser();
      const project = await createTestProject(alice.token, { name: "race", files: { "README.md": "race\n" } });
      const created = await call("POST", `/api/workspaces/${project.path}/workspaces`, {
        token: alice.token,
        body: { name: "shared" },
      });
      expect(created.status).toBe(201);
      const remote = withToken(created.body.remote, alice.token);

      const results = await Promise.all([
        ...Array.from({ length: PUSHERS }, (_, id) => pusher(remote, id)),
        apiCommitter(alice.token, project.id, "shared"),
      ]);
      const accepted = results.flat();
      expect(accepted.length).toBe(PUSHERS * ROUNDS + API_COMMITS);

      const check = git.dir("check");
      await git.ok(["clone", "-q", remote, check]);
      const history = (await git.ok(["rev-list", "HEAD"], { cwd: check })).split("\n");
      for (const sha of accepted) expect(history, `lost update ${sha}`).toContain(sha);
      // Nothing else landed: the initial commit plus exactly the accepted ones.
      expect(history.length).toBe(1 + accepted.length);

      const events = await call("GET", `/api/projects/${project.path}/activity?limit=200`, { token: alice.token });
      const pushes = events.body.events.filter((event: { kind: string }) => event.kind === "push");
      // Every accepted update records one `push` (API commits to a workspace record the same signal).
      expect(pushes.length).toBe(PUSHERS * ROUNDS + API_COMMITS);
    },
    TIMEOUT_MS,
  );

  it(
    "parallel pushes to the project's default branch: no lost update",
    async () => {
      const alice = await createTestUser();
      const project = await createTestProject(alice.token, { name: "race2", files: { "README.md": "race\n" } });
      const remote = withToken(project.remote, alice.token);
      const accepted = (await Promise.all(Array.from({ length: PUSHERS }, (_, id) => pusher(remote, 100 + id)))).flat();
      const log = await call("GET", `/api/projects/${project.path}/log?depth=100`, { token: alice.token });
      const history = log.body.log.map((entry: { sha: string }) => entry.sha);
      for (const sha of accepted) expect(history, `lost update ${sha}`).toContain(sha);
      expect(history.length).toBe(1 + accepted.length);
    },
    TIMEOUT_MS,
  );
});
