// executeRun end to end with real bubblewrap: setup and its cache, retries, the log's cap,
// findings from a real `node --test` and from a real JUnit file. Skipped where bubblewrap is missing.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bwrapMissing, runnerFixture, type RunnerFixture } from "./test-runs";

const failingTest = `const test = require("node:test");
const assert = require("node:assert");

test("adds", () => {
  assert.strictEqual(1 + 1, 3);
});

test("subtracts", () => {
  assert.strictEqual(2 - 1, 1);
});
`;

describe.skipIf(bwrapMissing !== null)(`executeRun${bwrapMissing ? ` (skipped: ${bwrapMissing})` : ""}`, () => {
  let fx: RunnerFixture;
  const saved = { ...process.env };
  beforeAll(() => {
    fx = runnerFixture("p-exec");
  });
  afterEach(() => {
    for (const name of ["RUNNER_LOG_MB", "RUNNER_CACHE_MB"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  afterAll(() => fx.cleanup());

  it("runs under the production server's umask 077 (server/runtime/data-dir.ts): the run's uid reaches its checkout", async () => {
    const before = process.umask(0o077);
    try {
      const run = await fx.run({ "a.txt": "here\n" }, "{ command: 'cat a.txt && id -un' }");
      expect(run, JSON.stringify(run.findings)).toMatchObject({ status: "passed" });
    } finally {
      process.umask(before);
    }
  });

  it("under umask 077, what setup cached (0600, its run's uid) is readable by the next run's uid: the entry is made the server's, a+rX", async () => {
    const before = process.umask(0o077);
    try {
      const files = { "deps.lock": "umask\n" };
      const policy = `{ setup: "mkdir -p deps/lib && echo library > deps/lib/index.txt", cache: { key: [deps.lock], paths: [deps] }, command: "cat deps/lib/index.txt" }`;
      expect(await fx.run(files, policy, { projectId: "p-umask" })).toMatchObject({ status: "passed" });
      const warm = await fx.run(files, policy, { projectId: "p-umask" });
      expect(warm, warm.output).toMatchObject({ status: "passed", cache: { hit: true } });
      expect(warm.output).toContain("library");
    } finally {
      process.umask(before);
    }
  });

  it("finds a failed node --test case at its file and line from the TAP output", async () => {
    const run = await fx.run({ "test/math.test.js": failingTest }, "{ command: 'node --test' }");
    expect(run).toMatchObject({ status: "failed", exitCode: 1, attempts: 1, flaky: false, timedOut: false });
    expect(run.findings).toEqual([
      { message: expect.stringContaining("2 !== 3"), file: "test/math.test.js", line: 5, rule: "test:adds" },
    ]);
  });

  it("finds failed cases in the JUnit files the reports globs name", async () => {
    const command = "node --test --test-reporter=junit --test-reporter-destination=reports/junit.xml";
    const run = await fx.run(
      { "test/math.test.js": failingTest, "reports/.keep": "" },
      `{ command: ${JSON.stringify(command)}, reports: ["reports/*.xml"] }`,
    );
    expect(run.status).toBe("failed");
    expect(run.findings).toEqual([
      { message: expect.stringContaining("2 !== 3"), file: "test/math.test.js", line: 5, rule: "test:adds" },
    ]);
  });

  it("gives the last 50 lines as the finding of a failure without tests", async () => {
    const run = await fx.run({ "a.txt": "a\n" }, `{ command: "seq 1 80; exit 3" }`);
    expect(run).toMatchObject({ status: "failed", exitCode: 3 });
    expect(run.findings).toHaveLength(1);
    expect(run.findings[0].message.split("\n")).toEqual([
      "The command exited with 3",
      ...Array.from({ length: 50 }, (_, i) => String(31 + i)),
    ]);
  });

  it("runs a failed command again up to retries; passing later marks the run flaky", async () => {
    const flaky = "if [ -e .tried ]; then echo second; else touch .tried; echo first; exit 1; fi";
    const run = await fx.run({ "a.txt": "a\n" }, `{ command: ${JSON.stringify(flaky)}, retries: 2 }`);
    expect(run).toMatchObject({ status: "passed", attempts: 2, flaky: true, exitCode: 0 });
    expect(run.output).toMatch(/first\n[\s\S]*second/);
    const failing = await fx.run({ "a.txt": "a\n" }, `{ command: "exit 4", retries: 2 }`);
    expect(failing).toMatchObject({ status: "failed", attempts: 3, flaky: false, exitCode: 4 });
  });

  it("fails a run whose setup fails, without running the command", async () => {
    const run = await fx.run({ "a.txt": "a\n" }, `{ setup: "echo installing; exit 7", command: "echo COMMAND-RAN" }`);
    expect(run).toMatchObject({ status: "failed", exitCode: 7, attempts: 0 });
    expect(run.findings[0].message).toBe("The setup command exited with 7\ninstalling");
    expect(run.output).not.toContain("COMMAND-RAN");
  });

  it("caches what setup produced per project: a hit restores it by hard links and skips setup", async () => {
    const files = { "deps.lock": "v1\n", "a.txt": "a\n" };
    const policy = `{ setup: "echo SETUP-RAN; mkdir -p deps/lib && echo library > deps/lib/index.txt", cache: { key: [deps.lock], paths: [deps] }, command: "cat deps/lib/index.txt; stat -c 'inode=%i' deps/lib/index.txt" }`;
    const cold = await fx.run(files, policy);
    expect(cold).toMatchObject({ status: "passed", cache: { hit: false } });
    expect(cold.output).toContain("SETUP-RAN");
    const warm = await fx.run(files, policy);
    expect(warm).toMatchObject({ status: "passed", cache: { key: cold.cache!.key, hit: true } });
    expect(warm.output).not.toContain("SETUP-RAN");
    expect(warm.output).toContain("library");
    const entry = path.join(
      process.env.DATA_DIR!,
      "runner",
      "cache",
      "p-exec",
      cold.cache!.key,
      "data",
      "deps",
      "lib",
      "index.txt",
    );
    // The same inode: shared, not copied.
    expect(Number(/inode=(\d+)/.exec(warm.output)![1])).toBe(fs.statSync(entry).ino);

    // Another lockfile is another entry; another project does not read this one.
    const changed = await fx.run({ ...files, "deps.lock": "v2\n" }, policy);
    expect(changed).toMatchObject({ cache: { hit: false } });
    expect(changed.cache!.key).not.toBe(cold.cache!.key);
    const neighbour = await fx.run(files, policy, { projectId: "p-exec-other" });
    expect(neighbour).toMatchObject({ cache: { key: cold.cache!.key, hit: false } });
  });

  it("a run cannot change a cache entry through its hard links, only replace the files in its own checkout", async () => {
    const files = { "deps.lock": "poison\n" };
    const setup = "mkdir deps && echo clean > deps/file.txt";
    const attack =
      "echo poisoned >> deps/file.txt 2>/dev/null && echo WROTE-THROUGH; rm -f deps/file.txt && echo mine > deps/file.txt && echo REPLACED";
    await fx.run(
      files,
      `{ setup: ${JSON.stringify(setup)}, cache: { key: [deps.lock], paths: [deps] }, command: "true" }`,
    );
    const hostile = await fx.run(
      files,
      `{ setup: ${JSON.stringify(setup)}, cache: { key: [deps.lock], paths: [deps] }, command: ${JSON.stringify(attack)} }`,
    );
    expect(hostile.cache?.hit).toBe(true);
    expect(hostile.output).not.toContain("WROTE-THROUGH");
    expect(hostile.output).toContain("REPLACED");
    const after = await fx.run(
      files,
      `{ setup: ${JSON.stringify(setup)}, cache: { key: [deps.lock], paths: [deps] }, command: "cat deps/file.txt" }`,
    );
    expect(after.output).toContain("clean");
    expect(after.output).not.toContain("poisoned");
  });

  it("keeps the cache under RUNNER_CACHE_MB, least recently used out first", async () => {
    process.env.RUNNER_CACHE_MB = "1";
    const policy = `{ setup: "mkdir deps && head -c 400000 /dev/urandom > deps/blob", cache: { key: [deps.lock], paths: [deps] }, command: "true" }`;
    const first = await fx.run({ "deps.lock": "lru-1\n" }, policy, { projectId: "p-lru" });
    const second = await fx.run({ "deps.lock": "lru-2\n" }, policy, { projectId: "p-lru" });
    // A hit makes the first the most recently used; the third entry then pushes out the second.
    expect((await fx.run({ "deps.lock": "lru-1\n" }, policy, { projectId: "p-lru" })).cache?.hit).toBe(true);
    await fx.run({ "deps.lock": "lru-3\n" }, policy, { projectId: "p-lru" });
    const entries = fs
      .readdirSync(path.join(process.env.DATA_DIR!, "runner", "cache", "p-lru"))
      .filter((name) => !name.startsWith("."));
    expect(entries).toContain(first.cache!.key);
    expect(entries).not.toContain(second.cache!.key);
  });

  it("caps the log at RUNNER_LOG_MB: the tail is kept and the cut is said", async () => {
    process.env.RUNNER_LOG_MB = "1";
    const sizes: number[] = [];
    const run = await fx.run({ "a.txt": "a\n" }, `{ command: "seq 1 400000" }`, {
      onOutput: (bytes) => sizes.push(bytes),
    });
    expect(run.status).toBe("passed");
    expect(run.logBytes).toBe(Buffer.byteLength(run.log));
    expect(run.logBytes).toBeLessThanOrEqual(1024 * 1024 + 200);
    expect(run.log).toMatch(/^\[runner\] \d+ bytes of output were cut; the last \d+ follow\n/);
    expect(run.log).toContain("\n399999\n400000\n");
    expect(run.log).not.toContain("\n1\n2\n3\n");
    expect(sizes.at(-1)).toBe(run.logBytes);
  });

  it("writes setup and command output to the log in order, stdout and stderr interleaved", async () => {
    const run = await fx.run(
      { "a.txt": "a\n" },
      `{ setup: "echo s-out; echo s-err >&2", command: "echo c-out; echo c-err >&2; echo c-out2" }`,
    );
    expect(run.output.split("\n").filter(Boolean)).toEqual(["s-out", "s-err", "c-out", "c-err", "c-out2"]);
  });
});
