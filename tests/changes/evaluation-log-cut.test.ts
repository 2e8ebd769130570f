import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runnersSettled } from "@/server/changes";
import { bwrapMissing } from "@/server/runners/test-runs";
import { parseSse } from "@/server/changes/runs/test-sse";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeLogs } from "@/client/cli/logs";
import { startTestServer, type TestServer } from "@/tests/git/support";
import { commitTo, POLICY, projectWith, workspaceOf } from "@/server/changes/test-fixtures";

// A 1 MiB cap and a suite that writes ~3.4 MiB (more than twice the cap: a live follower's offset falls into the cut part), then waits, then one last line.
useTestEnvironment({ SANDBOX_ENABLED: "1", RUNNER_LOG_MB: "1" });
afterEach(() => runnersSettled());
let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

const CUT = /^\[runner\] (\d+) bytes of output were cut; the last (\d+) follow\n/;
const sse = (text: string) => parseSse(text).map((e) => ({ ...e, text: e.data && JSON.parse(e.data) }));

describe.skipIf(bwrapMissing !== null)("a log past RUNNER_LOG_MB tells its followers it was cut", () => {
  it("live, resumed, tailed and through the CLI: the cut is said, then the kept tail, nothing missing from it", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      [POLICY]: "evaluators:\n  sandbox: { command: 'seq 1 500000; sleep 2; echo the-end' }\n",
      "README.md": "hi\n",
    });
    const workspace = await workspaceOf(alice.token, project);
    await commitTo(alice.token, project, workspace, { "a.txt": "a\n" });
    const created = await call("POST", `/api/projects/${project.path}/changes?wait=0`, {
      token: alice.token,
      body: { workspace },
    });
    expect(created.status).toBe(201);
    const runs = created.body.evalRuns as Array<{ id: string; evaluator: string }>;
    const run = runs.find((r) => r.evaluator === "sandbox")!;
    expect(run).toBeDefined();
    const path = `/api/changes/${created.body.change.id}/evaluations/${run.id}/log`;
    const follow = (lastEventId?: string) =>
      call("GET", path, {
        token: alice.token,
        headers: { accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
      });

    const live = sse((await follow()).text);
    await runnersSettled();
    const whole = (await call("GET", path, { token: alice.token })).text;
    const [head, cutBytes] = CUT.exec(whole)!;
    const kept = whole.slice(head.length);
    expect(kept).toMatch(/\n500000\n[\s\S]*the-end\n/);
    const total = Number(cutBytes) + Buffer.byteLength(kept);

    // The follower is told of the cut head, then gets every byte that was kept, and its offsets
    // count the output: the end's id is the output's size.
    const told = live.findLastIndex((e) => e.event === "truncated");
    expect(live[told]).toMatchObject({ text: head, id: cutBytes });
    const after = live.slice(told + 1);
    expect(after.at(-1)).toMatchObject({ event: "end", text: { status: "passed" } });
    expect(
      after
        .filter((e) => e.event === "log")
        .map((e) => e.text)
        .join(""),
    ).toBe(kept);
    expect(after.at(-2)!.id).toBe(String(total));
    // What came before the notice is the head of the output as written.
    const before = live
      .slice(0, told)
      .filter((e) => e.event === "log")
      .map((e) => e.text)
      .join("");
    expect(before.startsWith("[runner] checkout of")).toBe(true);
    expect(before).not.toContain("passed its limit");

    // A resume inside the cut part: the notice, then what was kept; past it: the rest, no notice.
    const resumed = sse((await follow("10")).text);
    expect(resumed.map((e) => e.event)).toEqual(["truncated", "log", "end"]);
    expect(resumed[0].text).toBe(head);
    expect(resumed[1].text).toBe(kept);
    const later = sse((await follow(String(total - 8))).text);
    expect(later.map((e) => [e.event, e.text])).toEqual([
      ["log", kept.slice(-8)],
      ["end", { status: "passed" }],
    ]);

    // ?tail: the cut line first, then the last lines.
    const tail = await call("GET", `${path}?tail=2`, { token: alice.token });
    expect(tail.text).toBe(`${head}${kept.split("\n").slice(-3).join("\n")}`);

    // The CLI follows a finished run as text, cut line included.
    let out = "";
    await changeLogs(created.body.change.id, {
      baseUrl: server.baseUrl,
      token: alice.token,
      follow: true,
      write: (text) => (out += text),
    });
    expect(out).toContain(head);
    expect(out).toMatch(/the-end\n/);
  });
});
