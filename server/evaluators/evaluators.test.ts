import { execFileSync } from "node:child_process";
import dns from "node:dns";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openRepo, writeCommitFromFiles, type Repo } from "@/server/git";
import { buildChangeDiff, countLineChanges, SubmoduleError } from "@/server/changes/diff/change-diff";
import { parsePolicy } from "@/server/policy/parse";
import { evaluateDiff } from "./diff";
import { policyBlockers, runEvaluation } from "./run";
import { startStubServer } from "./stub-server";
import type { EvaluationSubject } from "./types";

const author = { name: "t", email: "t@example.com" };
let root: string;
let repo: Repo;
let base: string;
const servers: Array<{ close(): Promise<void> }> = [];
// The outbound target policy compares hosts with BASE_URL's: give it a real one.
process.env.BASE_URL = "http://svc.test";
const savedEnv = { ...process.env };

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "evaluators-"));
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "r.git")]);
  repo = openRepo(path.join(root, "r.git"), "evaluators");
  base = (
    await writeCommitFromFiles(repo, {
      parent: null,
      files: { "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" },
      message: "base",
      author,
    })
  ).oid;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  process.env = { ...savedEnv };
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function subjectFor(files: Record<string, string | null>, policyText: string | null): Promise<EvaluationSubject> {
  const tip = (await writeCommitFromFiles(repo, { parent: base, files, message: "tip", author })).oid;
  return {
    project: { id: "p1", path: "@alice/demo" },
    changeId: "c1",
    repo,
    diff: await buildChangeDiff(repo, base, tip),
    policy: parsePolicy(policyText),
  };
}

describe("change diff", () => {
  it("lists changed files with line counts and contents", async () => {
    const subject = await subjectFor(
      { "src/a.ts": "export const a = 2;\nexport const b = 3;\n", "README.md": null, "docs/x.md": "x\n" },
      null,
    );
    const byPath = Object.fromEntries(subject.diff.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(["README.md", "docs/x.md", "src/a.ts"]);
    expect(byPath["src/a.ts"]).toMatchObject({ status: "modified", additions: 2, deletions: 1 });
    expect(byPath["README.md"]).toMatchObject({ status: "deleted", additions: 0, deletions: 1, newText: null });
    expect(byPath["docs/x.md"]).toMatchObject({ status: "added", additions: 1, newText: "x\n" });
    expect(subject.diff).toMatchObject({ additions: 3, deletions: 2 });
  });

  it("refuses a root .gitmodules", async () => {
    const tip = (
      await writeCommitFromFiles(repo, {
        parent: base,
        files: { ".gitmodules": "[submodule]\n" },
        message: "sub",
        author,
      })
    ).oid;
    await expect(buildChangeDiff(repo, base, tip)).rejects.toBeInstanceOf(SubmoduleError);
  });

  it("counts lines by multiset", () => {
    expect(countLineChanges("a\nb\nc\n", "a\nc\nd\n")).toEqual({ additions: 1, deletions: 1 });
    expect(countLineChanges(null, "a\nb")).toEqual({ additions: 2, deletions: 0 });
  });
});

describe("diff evaluator", () => {
  it("enforces file, line, size and path limits", async () => {
    const subject = await subjectFor({ "secrets/key.txt": "k\n", "src/b.ts": "1\n2\n3\n", "lib/c.ts": "c\n" }, null);
    const result = evaluateDiff(subject.diff, {
      maxFiles: 2,
      maxLines: 3,
      maxFileBytes: 4,
      forbiddenPaths: ["secrets/**"],
      allowedPaths: ["src/**", "secrets/**"],
    });
    expect(result.status).toBe("failed");
    expect(result.findings.map((f) => f.rule).sort()).toEqual([
      "allowedPaths",
      "forbiddenPaths",
      "maxFileBytes",
      "maxFiles",
      "maxLines",
    ]);
    expect(evaluateDiff(subject.diff, { forbiddenPaths: [] })).toEqual({ status: "passed", findings: [] });
  });
});

describe("runEvaluation", () => {
  it("passes a clean change under the default policy with one secret-scan run", async () => {
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "export const b = 2;\n" }, null));
    expect(outcome.verdict).toBe("passed");
    expect(outcome.runs.map((r) => [r.evaluator, r.status])).toEqual([["secretScan", "passed"]]);
  });

  it("fails on a secret, naming file and line without the secret", async () => {
    const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A";
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": `// x\nconst t = "${token}";\n` }, null));
    expect(outcome.verdict).toBe("failed");
    expect(outcome.issues[0]).toContain("src/b.ts:2");
    expect(JSON.stringify(outcome)).not.toContain(token);
  });

  it("fails on an invalid policy with the parse error, still scanning for secrets", async () => {
    const outcome = await runEvaluation(await subjectFor({ "x.txt": "x\n" }, "requiredApprovals: lots"));
    expect(outcome.verdict).toBe("failed");
    expect(outcome.runs.map((r) => r.evaluator)).toEqual(["secretScan", "policy"]);
    expect(outcome.issues[0]).toContain(".svc/policy.yml is invalid at requiredApprovals");
  });

  it("fails closed when the policy names an unconfigured evaluator", async () => {
    delete process.env.LLM_API_URL;
    delete process.env.SANDBOX_ENABLED;
    const subject = await subjectFor({ "x.txt": "x\n" }, "evaluators: { llm: {}, sandbox: { command: 'true' } }");
    const outcome = await runEvaluation(subject);
    expect(outcome.verdict).toBe("failed");
    expect(outcome.runs.filter((r) => r.status === "error").map((r) => r.evaluator)).toEqual(["llm", "sandbox"]);
    expect(policyBlockers(subject.policy)).toHaveLength(2);
    expect(policyBlockers(parsePolicy(null))).toEqual([]);
  });
});

describe("webhook evaluator (real HTTP server on 127.0.0.1)", () => {
  const policy = (url: string, timeoutMs = 2000) =>
    `evaluators: { webhook: { url: "${url}/check", timeoutMs: ${timeoutMs} } }`;

  it("POSTs the change and takes a passing verdict", async () => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    const stub = await startStubServer(() => ({ body: { verdict: "pass" } }));
    servers.push(stub);
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url)));
    expect(outcome.verdict).toBe("passed");
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0].url).toBe("/check");
    expect(stub.requests[0].body.change).toMatchObject({
      id: "c1",
      files: [{ path: "src/b.ts", status: "added", additions: 1 }],
    });
  });

  it("fails with the receiver's issues", async () => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    const stub = await startStubServer(() => ({
      body: { verdict: "fail", issues: ["tests are red", { message: "typo", file: "src/b.ts", line: 1 }] },
    }));
    servers.push(stub);
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url)));
    const run = outcome.runs.find((r) => r.evaluator === "webhook")!;
    expect(run.status).toBe("failed");
    expect(run.findings).toEqual([{ message: "tests are red" }, { message: "typo", file: "src/b.ts", line: 1 }]);
  });

  it.each([
    ["a timeout", { delayMs: 1500, body: { verdict: "pass" } }, "timed out"],
    ["an HTTP error", { status: 500 }, "HTTP 500"],
    ["a reply without a verdict", { body: { ok: true } }, "without a verdict"],
    ["a non-JSON reply", { body: "<html>" }, "did not reply with JSON"],
  ])("errors (fails closed) on %s", async (_, answer, message) => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    const stub = await startStubServer(() => answer);
    servers.push(stub);
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url, 300)));
    const run = outcome.runs.find((r) => r.evaluator === "webhook")!;
    expect(outcome.verdict).toBe("failed");
    expect(run.status).toBe("error");
    expect(run.findings[0].message).toContain(message);
  });

  it("refuses a private target unless ALLOW_PRIVATE_TARGETS=1", async () => {
    delete process.env.ALLOW_PRIVATE_TARGETS;
    const stub = await startStubServer(() => ({ body: { verdict: "pass" } }));
    servers.push(stub);
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url)));
    expect(outcome.runs.find((r) => r.evaluator === "webhook")!.findings[0].message).toContain(
      "a private, loopback or link-local address",
    );
    expect(stub.requests).toHaveLength(0);
  });

  it("re-checks the addresses at connect time (a DNS answer that changes after the check is refused)", async () => {
    delete process.env.ALLOW_PRIVATE_TARGETS;
    const stub = await startStubServer(() => ({ body: { verdict: "pass" } }));
    servers.push(stub);
    // The check before connecting sees a public address (never connected to); the lookup at connect time answers loopback.
    const host = "rebind.svc.test";
    const realLookup = dns.promises.lookup;
    const early = vi
      .spyOn(dns.promises, "lookup")
      .mockImplementation(((name: string, options: dns.LookupAllOptions) =>
        name === host
          ? Promise.resolve([{ address: "8.8.8.8", family: 4 }])
          : realLookup(name, options)) as typeof dns.promises.lookup);
    const late = vi
      .spyOn(dns, "lookup")
      .mockImplementation(((
        _name: string,
        _options: unknown,
        callback: (e: null, entries: dns.LookupAddress[]) => void,
      ) => callback(null, [{ address: "127.0.0.1", family: 4 }])) as unknown as typeof dns.lookup);
    try {
      const outcome = await runEvaluation(
        await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url.replace("127.0.0.1", host))),
      );
      const run = outcome.runs.find((r) => r.evaluator === "webhook")!;
      expect(run.status).toBe("error");
      expect(run.findings[0].message).toContain(
        `${host} resolves to 127.0.0.1, a private, loopback or link-local address`,
      );
      expect(early).toHaveBeenCalled();
      expect(late).toHaveBeenCalled();
      expect(stub.requests).toHaveLength(0);
    } finally {
      early.mockRestore();
      late.mockRestore();
    }
  });

  it("reads a reply longer than a webhook delivery's response excerpt", async () => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    const issues = Array.from({ length: 40 }, (_, i) => `issue ${i} ${"x".repeat(100)}`);
    const stub = await startStubServer(() => ({ body: { verdict: "fail", issues } }));
    servers.push(stub);
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, policy(stub.url)));
    expect(outcome.runs.find((r) => r.evaluator === "webhook")!.findings.map((f) => f.message)).toEqual(issues);
  });
});

describe("llm evaluator (real OpenAI-compatible server on 127.0.0.1)", () => {
  const completion = (content: string) => ({
    choices: [{ message: { role: "assistant", content } }],
    usage: { prompt_tokens: 1200, completion_tokens: 300 },
  });

  it("sends the diff, reads the verdict and records tokens and cost", async () => {
    const stub = await startStubServer(() => ({
      body: completion('{"verdict":"fail","issues":[{"message":"off by one","file":"src/b.ts","line":1}]}'),
    }));
    servers.push(stub);
    Object.assign(process.env, {
      LLM_API_URL: `${stub.url}/v1`,
      LLM_API_KEY: "k-test",
      LLM_MODEL: "m-test",
      LLM_COST_PER_MTOK_INPUT: "2",
      LLM_COST_PER_MTOK_OUTPUT: "10",
    });
    const outcome = await runEvaluation(
      await subjectFor(
        { "src/b.ts": "for (i = 0; i <= n; i++)\n" },
        "evaluators: { llm: { instructions: 'check loops' } }",
      ),
    );
    const run = outcome.runs.find((r) => r.evaluator === "llm")!;
    expect(run).toMatchObject({
      status: "failed",
      inputTokens: 1200,
      outputTokens: 300,
      findings: [{ message: "off by one", file: "src/b.ts", line: 1 }],
    });
    expect(run.costUsd).toBeCloseTo((1200 * 2 + 300 * 10) / 1e6, 10);
    const request = stub.requests[0];
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer k-test");
    expect(request.body.model).toBe("m-test");
    expect(request.body.messages[0].content).toContain("check loops");
    expect(request.body.messages[1].content).toContain("+for (i = 0; i <= n; i++)");
  });

  it("passes on a fenced JSON pass verdict", async () => {
    const stub = await startStubServer(() => ({ body: completion('```json\n{"verdict":"pass","issues":[]}\n```') }));
    servers.push(stub);
    process.env.LLM_API_URL = stub.url;
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, "evaluators: { llm: {} }"));
    expect(outcome.verdict).toBe("passed");
  });

  it("errors on an endpoint failure", async () => {
    const stub = await startStubServer(() => ({ status: 503, body: {} }));
    servers.push(stub);
    process.env.LLM_API_URL = stub.url;
    const outcome = await runEvaluation(await subjectFor({ "src/b.ts": "b\n" }, "evaluators: { llm: {} }"));
    expect(outcome.runs.find((r) => r.evaluator === "llm")).toMatchObject({
      status: "error",
      findings: [{ message: "LLM endpoint answered HTTP 503" }],
    });
  });
});

describe("sandbox evaluator", () => {
  it("runs the command in a checkout of the tip, without network or server environment", async () => {
    process.env.SANDBOX_ENABLED = "1";
    process.env.SVC_SECRET_SHOULD_NOT_LEAK = "leak";
    const command =
      'test -f src/b.ts && test -z "$SVC_SECRET_SHOULD_NOT_LEAK" && ! (exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null; grep -q ok src/b.ts';
    const outcome = await runEvaluation(
      await subjectFor({ "src/b.ts": "ok\n" }, `evaluators: { sandbox: { command: ${JSON.stringify(command)} } }`),
    );
    expect(outcome.runs.find((r) => r.evaluator === "sandbox")).toMatchObject({ status: "passed" });
  });

  it("fails on a non-zero exit with the output tail", async () => {
    process.env.SANDBOX_ENABLED = "1";
    const outcome = await runEvaluation(
      await subjectFor({ "src/b.ts": "b\n" }, `evaluators: { sandbox: { command: "echo broken; exit 3" } }`),
    );
    const run = outcome.runs.find((r) => r.evaluator === "sandbox")!;
    expect(run.status).toBe("failed");
    expect(run.findings.map((f) => f.message)).toEqual(["Sandbox command exited with 3", "broken"]);
  });

  it("kills a command that exceeds its time bound", async () => {
    process.env.SANDBOX_ENABLED = "1";
    const outcome = await runEvaluation(
      await subjectFor({ "src/b.ts": "b\n" }, `evaluators: { sandbox: { command: "sleep 30", timeoutMs: 1000 } }`),
    );
    expect(outcome.runs.find((r) => r.evaluator === "sandbox")!.findings[0].message).toBe(
      "Sandbox command timed out after 1000 ms",
    );
  });

  it("bounds memory", async () => {
    process.env.SANDBOX_ENABLED = "1";
    // Doubles a string up to 512 MB; unbounded it succeeds (checked by hand), under 64 MB awk runs out of memory.
    const hog = 'awk "BEGIN { s = \\"x\\"; while (length(s) < 500000000) s = s s; print length(s) }"';
    const outcome = await runEvaluation(
      await subjectFor(
        { "src/b.ts": "b\n" },
        `evaluators: { sandbox: { command: ${JSON.stringify(hog)}, memoryMb: 64, timeoutMs: 20000 } }`,
      ),
    );
    const run = outcome.runs.find((r) => r.evaluator === "sandbox")!;
    expect(run.findings.map((f) => f.message).join("\n")).toContain("out of memory");
    expect(outcome.runs.find((r) => r.evaluator === "sandbox")!.status).toBe("failed");
  });
});

describe("change diff against a moved base", () => {
  it("diffs from the merge base, so project commits the workspace lacks do not show as reverted", async () => {
    const tip = (
      await writeCommitFromFiles(repo, { parent: base, files: { "mine.txt": "m\n" }, message: "ws", author })
    ).oid;
    const head = (
      await writeCommitFromFiles(repo, { parent: base, files: { "theirs.txt": "t\n" }, message: "project", author })
    ).oid;
    const diff = await buildChangeDiff(repo, head, tip);
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([["mine.txt", "added"]]);
  });
});
