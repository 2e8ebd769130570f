import fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runnersSettled } from "@/server/changes";
import { bwrapMissing } from "@/server/runners/test-runs";
import { parseSse } from "@/server/changes/runs/test-sse";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeLogs } from "@/client/cli/logs";
import { startTestServer, type TestServer } from "@/tests/git/support";
import { commitTo, POLICY, projectWith, workspaceOf, type TestProject } from "@/server/changes/test-fixtures";

useTestEnvironment({ SANDBOX_ENABLED: "1" });
afterEach(() => runnersSettled());
let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

/** The runners' launcher this process started (a child running `launcher-process.mjs runners`), or null. */
function launcherOf(parent: number): number | null {
  for (const entry of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (
        ppid === parent &&
        fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("launcher-process.mjs\0runners")
      )
        return Number(entry);
    } catch {
      // ended while read
    }
  }
  return null;
}

const sandboxRun = (runs: any[]) => runs.find((run) => run.evaluator === "sandbox");

async function proposeWith(token: string, project: TestProject, files: Record<string, string>, query = "") {
  const workspace = await workspaceOf(token, project);
  await commitTo(token, project, workspace, files);
  const res = await call("POST", `/api/projects/${project.path}/changes${query}`, { token, body: { workspace } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { change: any; eval: any; evalRuns: any[] };
}

const sandboxProject = (token: string, sandbox: string) =>
  projectWith(token, { [POLICY]: `evaluators:\n  sandbox: ${sandbox}\n`, "README.md": "hi\n" });

describe.skipIf(bwrapMissing !== null)("sandbox runs in the background", () => {
  it("reuses a final run of an identical tree and settings: same status, reusedFrom set, nothing run", async () => {
    const alice = await createTestUser();
    const project = await sandboxProject(alice.token, "{ command: 'echo ran-the-suite' }");
    const first = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    const ran = sandboxRun(first.evalRuns);
    expect(ran).toMatchObject({ status: "passed", reusedFrom: null, exitCode: 0, attempts: 1 });
    const log = await call("GET", `/api/changes/${first.change.id}/evaluations/${ran.id}/log`, { token: alice.token });
    expect(log.text).toContain("ran-the-suite");

    // Re-evaluating the unchanged change, and another change with the same tree, cost no run.
    const again = await call("POST", `/api/changes/${first.change.id}/evaluate`, { token: alice.token });
    expect(again.status).toBe(200);
    expect(sandboxRun(again.body.evalRuns)).toMatchObject({
      status: "passed",
      reusedFrom: ran.id,
      attempts: 0,
      logBytes: 0,
    });
    const twin = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    expect(twin.change.status).toBe("accepted");
    expect(sandboxRun(twin.evalRuns)).toMatchObject({ status: "passed", reusedFrom: ran.id });
    // Another tree runs.
    const other = await proposeWith(alice.token, project, { "b.txt": "b\n" });
    expect(sandboxRun(other.evalRuns)).toMatchObject({ status: "passed", reusedFrom: null, attempts: 1 });
  });

  it("a suite past its time bound is killed: failed, timedOut, the change needs_changes", async () => {
    const alice = await createTestUser();
    const project = await sandboxProject(alice.token, "{ command: 'sleep 60', timeoutMs: 1000 }");
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    expect(created.change.status).toBe("needs_changes");
    expect(sandboxRun(created.evalRuns)).toMatchObject({ status: "failed", timedOut: true });
  });

  it("a run whose runners' launcher dies under it is run again (its take counted) and passes", async () => {
    const alice = await createTestUser();
    const project = await sandboxProject(alice.token, "{ command: 'echo started; sleep 3; echo finished' }");
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const run = sandboxRun(created.evalRuns);
    const logPath = `/api/changes/${created.change.id}/evaluations/${run.id}/log`;
    // The suite's own line, not the runner's note naming the command (written before the suite is
    // launched: a kill then finds no launch pending, and the run simply starts a new launcher).
    for (let tries = 0; !/^started$/m.test((await call("GET", logPath, { token: alice.token })).text); tries++) {
      expect(tries, "the suite started within 20 s").toBeLessThan(400);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const launcher = launcherOf(process.pid);
    expect(launcher).not.toBeNull();
    process.kill(launcher!, "SIGKILL");
    await runnersSettled();
    const after = (await call("GET", `/api/changes/${created.change.id}`, { token: alice.token })).body;
    expect(after.change.status).toBe("accepted");
    expect(sandboxRun(after.evalRuns)).toMatchObject({ id: run.id, status: "passed", attempts: 2 });
    expect((await call("GET", logPath, { token: alice.token })).text).toContain("finished");
  });

  it("a slow suite answers open; its log streams live over SSE (resumable), then end; the change is accepted at the end", async () => {
    const alice = await createTestUser();
    const project = await sandboxProject(alice.token, "{ command: 'echo one; sleep 2; echo two' }");
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    expect(created.change.status).toBe("open");
    const run = sandboxRun(created.evalRuns);
    const path = `/api/changes/${created.change.id}/evaluations/${run.id}/log`;
    const live = parseSse(
      (await call("GET", path, { token: alice.token, headers: { accept: "text/event-stream" } })).text,
    );
    expect(live.at(-1)).toEqual({ id: undefined, event: "end", data: JSON.stringify({ status: "passed" }) });
    const logs = live.filter((e) => e.event === "log");
    const streamed = logs.map((e) => JSON.parse(e.data) as string).join("");
    const whole = (await call("GET", path, { token: alice.token })).text;
    expect(streamed).toBe(whole);
    expect(whole).toMatch(/one\n[\s\S]*two\n/);
    expect(logs.at(-1)!.id).toBe(String(Buffer.byteLength(whole)));
    const cut = Buffer.byteLength(whole.slice(0, whole.indexOf("two")));
    const resumed = parseSse(
      (
        await call("GET", path, {
          token: alice.token,
          headers: { accept: "text/event-stream", "last-event-id": String(cut) },
        })
      ).text,
    );
    expect(
      resumed
        .filter((e) => e.event === "log")
        .map((e) => JSON.parse(e.data))
        .join(""),
    ).toBe(whole.slice(whole.indexOf("two")));
    await runnersSettled();
    expect((await call("GET", `/api/changes/${created.change.id}`, { token: alice.token })).body.change.status).toBe(
      "accepted",
    );
  });

  it("svc-forge change logs --follow prints each run's log, streaming a running one to its end", async () => {
    const alice = await createTestUser();
    const project = await sandboxProject(alice.token, "{ command: 'echo start; sleep 2; echo finish' }");
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    let out = "";
    const ended = await changeLogs(created.change.id, {
      baseUrl: server.baseUrl,
      token: alice.token,
      follow: true,
      write: (text) => (out += text),
    });
    expect(ended).toEqual([
      { evaluator: "secretScan", status: "passed" },
      { evaluator: "sandbox", status: "passed" },
    ]);
    expect(out).toMatch(
      /== secretScan \(passed\) ==\n== sandbox \((queued|running)\) ==\n[\s\S]*start\nfinish\n[\s\S]*== sandbox: passed ==\n$/,
    );
    // Without --follow: what is there, once.
    let again = "";
    await changeLogs(created.change.id, {
      baseUrl: server.baseUrl,
      token: alice.token,
      follow: false,
      write: (text) => (again += text),
    });
    expect(again).toMatch(/== sandbox \(passed\) ==\n[\s\S]*start\nfinish\n[\s\S]*$/);
    await expect(
      changeLogs("00000000-0000-4000-8000-000000000000", {
        baseUrl: server.baseUrl,
        token: alice.token,
        follow: false,
        write: () => {},
      }),
    ).rejects.toThrow(/^404/);
  });
});
