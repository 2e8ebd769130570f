import { beforeAll, describe, expect, it } from "vitest";
import { changeWith, commitTo, createAgentFor } from "@/server/changes/test-fixtures";
import { db } from "@/server/db/client";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { withEnv } from "@/tests/support/env";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { useGitServer, withToken } from "@/tests/git/support";
import { projectRow, requestImport, uniqueName, useStubProvider } from "./support";

useTestEnvironment();
useTestJobs();
const stub = useStubProvider();

type User = Awaited<ReturnType<typeof createTestUser>>;
let owner: User;
let repo: string;
let project: { id: string; path: string };

beforeAll(async () => {
  owner = await createTestUser();
  repo = uniqueName("pr");
  stub.current.seed("octo", repo, [{ "README.md": "hi\n" }]);
  const slug = uniqueName("prj");
  await requestImport(owner, slug, { url: `${stub.current.url}/octo/${repo}` });
  await drainJobs({ timeoutMs: 60_000 });
  project = { id: (await projectRow(owner.username, slug)).id, path: `@${owner.username}/${slug}` };
});

const promote = (token: string, id: string, body?: unknown) =>
  call("POST", `/api/changes/${id}/host-pr`, { token, body });

describe("POST /api/changes/{id}/host-pr", { timeout: 120_000 }, () => {
  it("pushes the tip to svc/<id>, opens one pull request against the default branch, marks the change promoted and posts the verdict", async () => {
    const { change } = await changeWith(owner.token, project as never, { "feature.txt": "new\n" });
    expect(change.status).toBe("accepted");
    const res = await promote(owner.token, change.id, { title: "Add feature" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      changeId: change.id,
      host: {
        owner: "octo",
        repo,
        branch: `svc/${change.id}`,
        pullRequestNumber: expect.any(Number),
        pullRequestUrl: expect.stringContaining(`/octo/${repo}/pull/`),
      },
    });
    expect(stub.current.tip("octo", repo, `svc/${change.id}`)).toBe(change.tipSha);
    const pulls = stub.current.requests.filter((r) => r.method === "POST" && r.path.endsWith("/pulls"));
    expect(pulls.map((r) => r.body)).toEqual([
      expect.objectContaining({ title: "Add feature", head: `svc/${change.id}`, base: "main", draft: true }),
    ]);
    expect(pulls[0].authorization).toBe(`Bearer ${stub.current.token}`);
    expect((await call("GET", `/api/changes/${change.id}`, { token: owner.token })).body.change).toMatchObject({
      status: "promoted",
      hostPullRequest: res.body.host,
    });

    const repeat = await promote(owner.token, change.id);
    expect(repeat.body).toEqual(res.body);
    expect(stub.current.requests.filter((r) => r.path.endsWith("/pulls"))).toHaveLength(1);

    await drainJobs({ timeoutMs: 60_000 });
    const statuses = stub.current.requests.filter((r) => r.path.includes(`/statuses/${change.tipSha}`));
    expect(statuses[0].body).toMatchObject({ state: "success", context: "svc/evaluation" });
    const comments = stub.current.requests.filter((r) =>
      r.path.endsWith(`/issues/${res.body.host.pullRequestNumber}/comments`),
    );
    expect(comments[0].body.body).toMatch(/svc\/evaluation: passed/);
  });

  it("answers 400 naming what is missing: a base field, a change not accepted, a project without a source, no token", async () => {
    const { change } = await changeWith(owner.token, project as never, { "other.txt": "x\n" });
    expect((await promote(owner.token, change.id, { base: "dev" })).status).toBe(400);
    await withEnv({ GITHUB_TOKEN: undefined }, async () => {
      const res = await promote(owner.token, change.id);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/GITHUB_TOKEN/);
    });
    const plain = await call("POST", "/api/projects", { token: owner.token, body: { name: uniqueName("plain") } });
    const { change: unsourced } = await changeWith(owner.token, { id: plain.body.id, path: plain.body.path } as never, {
      "x.txt": "x\n",
    });
    expect((await promote(owner.token, unsourced.id)).body.error).toMatch(/connected to the hosting provider/);
    await call("POST", `/api/changes/${change.id}/reject`, { token: owner.token });
    expect((await promote(owner.token, change.id)).body.error).toMatch(/accepted change/);
  });

  it("a rejected credential is 401 AUTH_ERROR, another provider failure 502 GITHUB_ERROR; agents 401, readers 403", async () => {
    const { change } = await changeWith(owner.token, project as never, { "third.txt": "x\n" });
    await withEnv({ GITHUB_TOKEN: "ghp_wrong" }, async () => {
      const res = await promote(owner.token, change.id);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("AUTH_ERROR");
      expect(res.text).not.toContain("ghp_wrong");
    });
    stub.current.fault = 429;
    try {
      const res = await promote(owner.token, change.id);
      expect(res.status).toBe(502);
      expect(res.body.code).toBe("GITHUB_ERROR");
    } finally {
      stub.current.fault = null;
    }
    const agent = await createAgentFor(owner.token);
    expect((await promote(agent.token, change.id)).status).toBe(401);
    const reader = await createTestUser();
    await grantCollaborator(project.id, reader.id, "read");
    expect((await promote(reader.token, change.id)).status).toBe(403);
    expect((await call("GET", `/api/changes/${change.id}`, { token: owner.token })).body.change.status).toBe(
      "accepted",
    );
  });
});

describe("a promoted change follows its workspace", { timeout: 120_000 }, () => {
  const local = useGitServer();

  const statusesOn = (sha: string) =>
    stub.current.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/statuses/${sha}`));
  const commentsOn = (number: number) =>
    stub.current.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/issues/${number}/comments`));
  const changeNow = async (id: string) => (await call("GET", `/api/changes/${id}`, { token: owner.token })).body;

  it("a commit through the route and a git push re-evaluate it in the background, move svc/<id> on the source, post a status and a comment; it stays promoted", async () => {
    const { change, workspace } = await changeWith(owner.token, project as never, { "follow.txt": "one\n" });
    const promoted = await promote(owner.token, change.id);
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    await drainJobs({ timeoutMs: 60_000 });
    const number = promoted.body.host.pullRequestNumber as number;
    expect(commentsOn(number)).toHaveLength(1);

    const committed = await commitTo(owner.token, project as never, workspace, { "follow.txt": "two\n" });
    await drainJobs({ timeoutMs: 60_000 });
    expect(stub.current.tip("octo", repo, `svc/${change.id}`)).toBe(committed);
    expect(statusesOn(committed).map((r) => r.body)).toEqual([
      expect.objectContaining({ state: "success", context: "svc/evaluation" }),
    ]);
    expect(commentsOn(number)).toHaveLength(2);
    expect(commentsOn(number)[1].body.body).toMatch(
      new RegExp(`svc/evaluation: passed\\*\\* \\(round 2, tip ${committed}\\)`),
    );
    let now = await changeNow(change.id);
    expect(now.change).toMatchObject({ status: "promoted", tipSha: committed });
    expect(now.eval).toMatchObject({ round: 2, tipSha: committed, verdict: "passed" });

    // A git push of a commit the secret scan refuses: a failure status, and still promoted.
    const { server, git } = local;
    const remote = `${server.baseUrl}/${project.path}/workspaces/${workspace}.git`;
    const work = git.dir(`follow-${change.id}`);
    await git.ok(["clone", "-q", withToken(remote, owner.token), work]);
    expect(await git.ok(["rev-parse", "HEAD"], { cwd: work })).toBe(committed);
    const pushed = await git.commit(
      work,
      { "creds.txt": `t=${"ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A"}\n` },
      "add creds",
    );
    await git.ok(["push", "-q", "origin", "HEAD"], { cwd: work });
    await drainJobs({ timeoutMs: 60_000 });
    expect(stub.current.tip("octo", repo, `svc/${change.id}`)).toBe(pushed);
    expect(statusesOn(pushed).map((r) => r.body)).toEqual([
      expect.objectContaining({ state: "failure", context: "svc/evaluation" }),
    ]);
    expect(commentsOn(number)).toHaveLength(3);
    expect(commentsOn(number)[2].body.body).toMatch(/svc\/evaluation: failed\*\* \(round 3/);
    now = await changeNow(change.id);
    expect(now.change).toMatchObject({ status: "promoted", tipSha: pushed });
    expect(stub.current.requests.filter((r) => r.path.endsWith("/pulls"))).toHaveLength(2);
    // The follow-ups of one workspace wait for each other, not for other workspaces' pushes.
    const follows = await (
      await db()
    ).jobRun.findMany({
      where: {
        functionId: { endsWith: "promoted-change-follow" },
        event: { path: ["data", "workspace"], equals: workspace },
      },
    });
    expect(follows.length).toBeGreaterThanOrEqual(2);
    for (const run of follows)
      expect(run.concurrencyKey).toBe(`${(run.event as { data: { projectId: string } }).data.projectId}:${workspace}`);
  });
});
