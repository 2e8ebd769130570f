// The sandbox against hostile suites: each command below attacks one promise of the isolation and
// prints what it got. Each attack succeeds on the runner this one replaced (a shared `nobody`
// with the host's file system and process table in view, a per-process data limit, a process
// group kill); bubblewrap must stop them all. Skipped where bubblewrap is missing (.ci/run
// installs it).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNNER_NICENESS, RUNNER_PROCESSES_MAX } from "@/server/limits";
import { LAUNCHER_GROUP, RUNS_GROUP, runsCpuGrouped } from "./cgroups";
import { launch } from "./launcher";
import { bwrapMissing, runnerFixture, type RunnerFixture } from "./test-runs";

/** Host processes whose command line is exactly `line` (a leftover of a run). */
const hostProcesses = (line: string) =>
  execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
    .split("\n")
    .filter((args) => args.trim() === line);

/** The ids of the host processes whose command line is exactly `line`. */
const hostProcessIds = (line: string) =>
  execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((row) => /^\s*(\d+) (.*)$/.exec(row))
    .filter((match) => match !== null && match[2].trim() === line)
    .map((match) => Number(match![1]));

/** The cgroup directory that weighs `pid`'s CPU (v1's `cpu` hierarchy, or v2's). */
function cpuGroupOf(pid: number): string {
  const lines = fs.readFileSync(`/proc/${pid}/cgroup`, "utf8").trim().split("\n");
  const v1 = lines.map((line) => line.split(":")).find(([, controllers]) => controllers.split(",").includes("cpu"));
  if (v1) return path.join("/sys/fs/cgroup/cpu", v1[2]);
  return path.join("/sys/fs/cgroup", lines.find((line) => line.startsWith("0::"))!.slice(3));
}

/** A CPU cgroup's weight: v1's `cpu.shares` (default 1024) or v2's `cpu.weight` (default 100). */
function cpuWeightOf(dir: string): { weight: number; defaultWeight: number } {
  const v1 = dir.startsWith("/sys/fs/cgroup/cpu/");
  return {
    weight: Number(fs.readFileSync(path.join(dir, v1 ? "cpu.shares" : "cpu.weight"), "utf8")),
    defaultWeight: v1 ? 1024 : 100,
  };
}

describe.skipIf(bwrapMissing !== null)(
  `isolation with bubblewrap${bwrapMissing ? ` (skipped: ${bwrapMissing})` : ""}`,
  () => {
    let fx: RunnerFixture;
    let server: http.Server;
    let port: number;

    beforeAll(async () => {
      fx = runnerFixture("p-hostile");
      server = http.createServer((_req, res) => res.end("the service itself\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      fx.cleanup();
    });

    it("shows none of the host's files: DATA_DIR, the repositories, /etc beyond the toolchain's", async () => {
      const secret = `secret-${randomBytes(6).toString("hex")}`;
      const dataFile = path.join(process.env.DATA_DIR!, "secret.txt");
      fs.writeFileSync(dataFile, secret, { mode: 0o644 });
      const command = [
        `cat ${dataFile} ${fx.repo.gitdir}/HEAD /etc/shadow /etc/machine-id 2>/dev/null && echo READ-HOST-FILE`,
        `ls ${process.env.DATA_DIR} 2>/dev/null && echo LISTED-DATA-DIR`,
        `grep -rl ${secret} /src /home /tmp /etc /run 2>/dev/null | head -1`,
        "ls /etc",
      ].join("; ");
      const run = await fx.run({ "a.txt": "a\n" }, `{ command: ${JSON.stringify(command)} }`);
      expect(run.status).toBe("passed");
      expect(run.output).not.toContain(secret);
      expect(run.output).not.toContain("READ-HOST-FILE");
      expect(run.output).not.toContain("LISTED-DATA-DIR");
      expect(run.output).not.toContain("shadow");
    });

    it("shows none of the host's processes", async () => {
      // The host's processes include this test's (a vitest worker); the sandbox's are bwrap, sh and its children.
      const command = `cat /proc/[0-9]*/cmdline | tr '\\0' ' ' | grep -q 'vites[t]' && echo SEES-HOST-$(echo PROCESS); echo procs=$(ls /proc | grep -c '^[0-9]'); echo id=$(id -u); tr '\\0' ' ' < /proc/1/cmdline`;
      const run = await fx.run({ "a.txt": "a\n" }, `{ command: ${JSON.stringify(command)} }`);
      expect(run.output).not.toContain("SEES-HOST-PROCESS");
      // bwrap (PID 1), the shell, ls and grep.
      expect(Number(/procs=(\d+)/.exec(run.output)![1])).toBeLessThan(8);
      expect(run.output).toContain("id=1000");
      // PID 1 is bwrap, whose options (host paths) came through a pipe.
      expect(run.output).toContain("bwrap --args 3");
      expect(run.output).not.toContain(process.env.DATA_DIR!);
    });

    it.runIf(process.getuid?.() === 0)(
      "runs each run as a host uid of its own, never root or the shared nobody",
      async () => {
        const sleepers = [0, 1].map(() => `sleep 3.${Math.floor(Math.random() * 1e6)}`);
        const runs = sleepers.map((sleeper) => fx.run({ "a.txt": "a\n" }, `{ command: ${JSON.stringify(sleeper)} }`));
        const uids: number[] = [];
        for (const sleeper of sleepers) {
          let line: string | undefined;
          while (
            !(line = execFileSync("ps", ["-eo", "uid=,args="], { encoding: "utf8" })
              .split("\n")
              // The sleep itself: the wrappers that exec their way to it (limits, setpriv) start as root with the same tail.
              .find((l) => l.trim().replace(/^\d+\s+/, "") === sleeper))
          )
            await new Promise((resolve) => setTimeout(resolve, 50));
          uids.push(Number(line.trim().split(/\s+/)[0]));
        }
        await Promise.all(runs);
        expect(uids.every((uid) => uid !== 0 && uid !== 65534)).toBe(true);
        expect(uids[0]).not.toBe(uids[1]);
      },
    );

    it("gives the command no network, not even the service on the host's 127.0.0.1; setup has it", async () => {
      const probe = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('REACHED'); process.exit(0) }).on('error', (e) => { console.log('BLOCKED', e.code); process.exit(0) })"`;
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ setup: ${JSON.stringify(`echo setup; ${probe}`)}, command: ${JSON.stringify(`echo command; ${probe}`)} }`,
      );
      expect(run.status).toBe("passed");
      const after = (marker: string) => run.output.slice(run.output.indexOf(`${marker}\n`)).split("\n")[1];
      expect(after("setup")).toBe("REACHED");
      expect(after("command")).toMatch(/^BLOCKED (ECONNREFUSED|ENETUNREACH)$/);
    });

    it("leaves nothing running: a setsid nohup child dies with the run", async () => {
      const sleeper = `sleep 4242.${Math.floor(Math.random() * 1e6)}`;
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ command: ${JSON.stringify(`setsid nohup ${sleeper} >/dev/null 2>&1 & sleep 0.2; echo started`)} }`,
      );
      expect(run.status).toBe("passed");
      expect(run.output).toContain("started");
      expect(hostProcesses(sleeper)).toEqual([]);
    });

    it("kills the whole tree at the timeout", async () => {
      const sleeper = `sleep 4243.${Math.floor(Math.random() * 1e6)}`;
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ command: ${JSON.stringify(`setsid ${sleeper} & sleep 60`)}, timeoutMs: 1500 }`,
      );
      expect(run).toMatchObject({ status: "failed", timedOut: true, exitCode: null, attempts: 1 });
      expect(hostProcesses(sleeper)).toEqual([]);
    });

    it("runs at RUNNER_NICENESS, and cannot lower it", async () => {
      // Field 19 of /proc/PID/stat is the niceness; renice to 0 (or below) needs CAP_SYS_NICE on the host.
      const command = `echo nice=$(cut -d' ' -f19 /proc/$$/stat); renice -n 0 -p $$ >/dev/null 2>&1 && echo RAISED; nice -n -5 true 2>/dev/null; echo after=$(cut -d' ' -f19 /proc/$$/stat)`;
      const run = await fx.run({ "a.txt": "a\n" }, `{ command: ${JSON.stringify(command)} }`);
      expect(run.status).toBe("passed");
      expect(run.output).toContain(`nice=${RUNNER_NICENESS}\n`);
      expect(run.output).not.toContain("RAISED");
      expect(run.output).toContain(`after=${RUNNER_NICENESS}\n`);
      expect(Number(fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ")[16])).toBeLessThan(
        RUNNER_NICENESS,
      );
    });

    it.skipIf(!runsCpuGrouped())(
      "weighs a run's CPU as one group, however many sessions it makes, and all runs as one",
      async () => {
        // The kernel's autogroups weigh each session as one group: a run that calls setsid in a loop
        // weighed as that many servers; and runs side by side, each a group of the default weight,
        // weighed as that many servers too.
        const sleeper = `sleep 4246.${Math.floor(Math.random() * 1e6)}`;
        const controller = new AbortController();
        const running = fx.run(
          { "a.txt": "a\n" },
          `{ command: ${JSON.stringify(`setsid ${sleeper} & sleep 120`)}, timeoutMs: 300000 }`,
          { signal: controller.signal },
        );
        try {
          let pid: number | undefined;
          while ((pid = hostProcessIds(sleeper)[0]) === undefined)
            await new Promise((resolve) => setTimeout(resolve, 50));
          const group = cpuGroupOf(pid);
          expect(path.basename(group)).toMatch(/^svc-runner-/);
          const { weight, defaultWeight } = cpuWeightOf(group);
          expect(weight).toBe(defaultWeight);
          // Its group is in the runs' one group, made beside the server's own processes.
          const runs = path.dirname(group);
          expect(path.relative(cpuGroupOf(process.pid), runs)).toBe(RUNS_GROUP);
          expect(cpuWeightOf(runs).weight).toBe(defaultWeight);
        } finally {
          controller.abort();
        }
        expect((await running).status).toBe("cancelled");
        expect(hostProcessIds(sleeper)).toEqual([]);
      },
    );

    it.skipIf(!runsCpuGrouped())("weighs what the launcher starts for a run (its checkout) with the runs", async () => {
      // A fleet's hundred runs starting together made two hundred checkouts beside the server.
      let stderr = "";
      const [exit] = await launch([{ command: "sh", args: ["-c", "cat /proc/self/cgroup >&2"] }], {
        onOutput: (chunk) => (stderr += chunk.toString("utf8")),
      }).exited;
      expect(exit.code).toBe(0);
      const cpuLine = stderr
        .split("\n")
        .find((line) => /^\d+:([^:]*,)?cpu(,[^:]*)?:/.test(line) || line.startsWith("0::"));
      expect(cpuLine).toMatch(new RegExp(`/${RUNS_GROUP}/${LAUNCHER_GROUP}$`));
    });

    it("hides another project's checkout running at the same time, and a cancel kills that run's tree", async () => {
      const other = runnerFixture("p-neighbour");
      // runnerFixture points DATA_DIR at its own directory: both runs now share the neighbour's.
      const marker = `marker-${randomBytes(6).toString("hex")}`;
      const sleeper = `sleep 4244.${Math.floor(Math.random() * 1e6)}`;
      const controller = new AbortController();
      const neighbour = other.run(
        { [`${marker}.txt`]: "theirs\n" },
        `{ command: ${JSON.stringify(`setsid ${sleeper} & sleep 120`)}, timeoutMs: 300000 }`,
        { signal: controller.signal },
      );
      const work = path.join(process.env.DATA_DIR!, "runner", "work");
      // The neighbour's checkout exists on the host while it runs.
      while (
        !fs.existsSync(work) ||
        !fs.readdirSync(work).some((dir) => fs.existsSync(path.join(work, dir, "src", `${marker}.txt`)))
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      while (hostProcesses(sleeper).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ command: ${JSON.stringify(`find / -name '${marker}*' 2>/dev/null; echo searched`)} }`,
      );
      controller.abort();
      const cancelled = await neighbour;
      other.cleanup();
      expect(run.output).toContain("searched");
      expect(run.output).not.toContain(`${marker}.txt`);
      expect(cancelled.status).toBe("cancelled");
      expect(hostProcesses(sleeper)).toEqual([]);
    });

    it("bounds the memory of the whole tree, not of each process", async () => {
      // Four processes of 96 MB each: every one is under a per-process limit of 200 MB, the tree is not.
      const eat = `node -e "const b = Buffer.alloc(96 << 20, 1); setTimeout(() => console.log('KEPT', b.length), 1500)"`;
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ command: ${JSON.stringify(`for i in 1 2 3 4; do ${eat} & done; wait`)}, memoryMb: 200, timeoutMs: 60000 }`,
      );
      expect(run.output.match(/KEPT/g)?.length ?? 0).toBeLessThan(4);
    });

    it("bounds the number of processes (a fork bomb stops at the limit)", async () => {
      // Counts once every spawn has started or failed.
      const bomb = `node -e "
      const { spawn } = require('child_process');
      const tries = ${RUNNER_PROCESSES_MAX + 150};
      let failed = 0, settled = 0;
      const settle = () => { if (++settled < tries) return; console.log('live=' + require('fs').readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length, 'failed=' + failed); process.exit(0) };
      for (let i = 0; i < tries; i++) spawn('sleep', ['30']).on('spawn', settle).on('error', () => { failed++; settle() });
    "`;
      const run = await fx.run(
        { "a.txt": "a\n" },
        `{ command: ${JSON.stringify(bomb)}, memoryMb: 1024, timeoutMs: 60000 }`,
      );
      const live = Number(/live=(\d+)/.exec(run.output)?.[1]);
      expect(live).toBeLessThanOrEqual(RUNNER_PROCESSES_MAX);
      expect(Number(/failed=(\d+)/.exec(run.output)?.[1])).toBeGreaterThan(0);
      expect(hostProcesses("sleep 30").length).toBeLessThan(RUNNER_PROCESSES_MAX);
    }, 90_000); // hundreds of forks and their teardown: 12-28 s in CI's recent runs, over 30 on a loaded machine
  },
);
