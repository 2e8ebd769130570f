import { fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { processAlive } from "@/tests/support/processes";
import { processLauncher } from "./launcher";
import { removeLeftBehind, rendezvous, TOKEN_BYTES } from "./rendezvous";

const { launch, connect } = processLauncher({ name: "test" });

/** Polls up to 20 s: a loaded CI machine can take seconds to start a Node process (with timers of its own: a test fakes the global ones). */
async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (condition()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Launches `sh -c script` and answers the first line it prints, once printed. */
function launchPrinting(script: string) {
  let stdout = "";
  const launched = launch([{ command: "sh", args: ["-c", script] }], {
    relayStdout: true,
    onOutput: (chunk, stream) => stream === "stdout" && (stdout += chunk.toString("utf8")),
  });
  const firstLine = async () => {
    await waitUntil(() => stdout.includes("\n"), "the first line");
    return stdout.split("\n")[0];
  };
  return { ...launched, firstLine };
}

describe("a launcher", () => {
  it("pipes each step into the next, relays the last one's stdout and every stderr, and answers each exit", async () => {
    const output: string[] = [];
    const { exited } = launch(
      [
        { command: "sh", args: ["-c", "printf 'one\\ntwo\\n'; echo complaint >&2"] },
        { command: "sh", args: ["-c", "tr a-z A-Z; exit 3"], env: { PATH: "/usr/bin:/bin" } },
      ],
      {
        relayStdout: true,
        onOutput: (chunk, stream, step) => output.push(`${step}:${stream}:${chunk.toString("utf8")}`),
      },
    );
    const exits = await exited;
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 3, signal: null },
    ]);
    expect(output).toContain("0:stderr:complaint\n");
    expect(output).toContain("1:stdout:ONE\nTWO\n");
  });

  it("writes fd3, and runs in the given directory with the given environment only", async () => {
    process.env.SVC_LAUNCHER_TEST_SECRET = "the server's";
    try {
      let stdout = "";
      const { exited } = launch(
        [
          {
            command: "/bin/sh",
            args: ["-c", 'cat <&3; pwd; echo "[$HOME][$SVC_LAUNCHER_TEST_SECRET]"'],
            cwd: "/tmp",
            env: { HOME: "/nowhere" },
            fd3: "options\0",
          },
        ],
        { relayStdout: true, onOutput: (chunk) => (stdout += chunk.toString("utf8")) },
      );
      expect(await exited).toEqual([{ code: 0, signal: null }]);
      expect(stdout).toBe("options\0/tmp\n[/nowhere][]\n");
    } finally {
      delete process.env.SVC_LAUNCHER_TEST_SECRET;
    }
  });

  it("answers a program that cannot start as an error of its step, not a rejection", async () => {
    const [exit] = await launch([{ command: "/nonexistent/program", args: [] }]).exited;
    expect(exit.code).toBeNull();
    expect(exit.error).toMatch(/ENOENT/);
  });

  it("relays all of a large output in order, however fast it comes", async () => {
    const hash = { bytes: 0, lines: 0, last: "" };
    let partial = "";
    const { exited } = launch([{ command: "sh", args: ["-c", "seq 1 2000000"] }], {
      relayStdout: true,
      onOutput: (chunk) => {
        hash.bytes += chunk.length;
        const lines = (partial + chunk.toString("latin1")).split("\n");
        partial = lines.pop()!;
        for (const line of lines) {
          if (Number(line) !== hash.lines + 1) throw new Error(`line ${hash.lines + 1} came as ${line}`);
          hash.lines++;
        }
      },
    });
    await exited;
    expect(hash.lines).toBe(2_000_000);
    expect(partial).toBe("");
  });

  it("is one process per name: another name's launches are forked by another", async () => {
    const own = launchPrinting("echo $PPID");
    let otherParent = "";
    const other = processLauncher({ name: "other-test" }).launch([{ command: "sh", args: ["-c", "echo $PPID"] }], {
      relayStdout: true,
      onOutput: (chunk) => (otherParent += chunk.toString("utf8")),
    });
    await other.exited;
    expect(Number(otherParent)).toBeGreaterThan(1);
    expect(Number(otherParent)).not.toBe(Number(await own.firstLine()));
    expect(Number(otherParent)).not.toBe(process.pid);
  });

  it("kills a launch's processes when asked", async () => {
    const sleeper = launchPrinting("echo $$; exec sleep 60");
    const pid = Number(await sleeper.firstLine());
    sleeper.kill();
    expect(await sleeper.exited).toEqual([{ code: null, signal: "SIGKILL" }]);
    expect(processAlive(pid)).toBe(false);
  });

  it("fails the launches of a launcher that dies, and starts another for the next", async () => {
    const sleeper = launchPrinting("echo $PPID $$; exec sleep 60");
    const [launcherPid, sleepPid] = (await sleeper.firstLine()).split(" ").map(Number);
    process.kill(launcherPid, "SIGKILL");
    await expect(sleeper.exited).rejects.toThrow(/launcher ended \(SIGKILL\)/);
    process.kill(sleepPid, "SIGKILL"); // a plain process outlives it; a sandbox dies with it (bwrap --die-with-parent)
    const next = launchPrinting("echo $PPID");
    expect(Number(await next.firstLine())).not.toBe(launcherPid);
    expect(await next.exited).toEqual([{ code: 0, signal: null }]);
  });

  it("ends 30 s after its last launch ended, and the next launch starts another", async () => {
    // The idle timer alone is faked (an earlier launch's real one is cleared too): the launcher's messages and its exit are real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldClearNativeTimers: true });
    try {
      const first = launchPrinting("echo $PPID");
      const launcherPid = Number(await first.firstLine());
      await first.exited;
      vi.advanceTimersByTime(29_999);
      const second = launchPrinting("echo $PPID");
      expect(Number(await second.firstLine())).toBe(launcherPid);
      await second.exited;
      vi.advanceTimersByTime(30_000);
      await waitUntil(() => !processAlive(launcherPid), "the idle launcher to end");
      const third = launchPrinting("echo $PPID");
      expect(Number(await third.firstLine())).not.toBe(launcherPid);
      expect(await third.exited).toEqual([{ code: 0, signal: null }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("kills what it started when the server goes", async () => {
    const launcher = fork(path.join(process.cwd(), "server/processes/launcher-process.mjs"), [], {
      serialization: "advanced",
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    let printed = "";
    launcher.on("message", (message: { type: string; data?: Uint8Array }) => {
      if (message.type === "output") printed += Buffer.from(message.data!).toString("utf8");
    });
    launcher.send({
      type: "start",
      id: 1,
      steps: [{ command: "sh", args: ["-c", "echo $$; exec sleep 60"] }],
      relayStdout: true,
    });
    await waitUntil(() => printed.includes("\n"), "the sleeper's pid");
    const pid = Number(printed.trim());
    expect(processAlive(pid)).toBe(true);
    launcher.disconnect();
    await once(launcher, "exit");
    await waitUntil(() => !processAlive(pid), "the sleeper to be killed");
  });

  it("connects a process's stdin and stdout to sockets of the server's, in a directory of its own user's alone", async () => {
    const connected = connect({ command: "sh", args: ["-c", "tr a-z A-Z; echo done >&2"] }, { writable: true });
    const [stdout, stdin] = await Promise.all([connected.stdout, connected.stdin]);
    stdin!.end("through the kernel\n");
    let text = "";
    for await (const chunk of stdout) text += String(chunk);
    expect(text).toBe("THROUGH THE KERNEL\n");
    expect(await connected.exited).toEqual([{ code: 0, signal: null }]);
    expect(fs.statSync(path.dirname(rendezvous().path)).mode & 0o777).toBe(0o700);
  });

  it("lets a connected process outlive its launcher's death: its output is read to its end, its exit is the launcher's loss", async () => {
    const connected = connect(
      { command: "sh", args: ["-c", "echo $PPID; read line; echo after $line"] },
      { writable: true },
    );
    const [stdout, stdin] = await Promise.all([connected.stdout, connected.stdin]);
    const lines = stdout[Symbol.asyncIterator]();
    const launcherPid = Number(String((await lines.next()).value).trim());
    process.kill(launcherPid, "SIGKILL");
    await expect(connected.exited).rejects.toThrow(/launcher ended \(SIGKILL\)/);
    stdin!.end("its input\n"); // written after the launcher died: the socket is the process's own
    let rest = "";
    for (let next = await lines.next(); !next.done; next = await lines.next()) rest += String(next.value);
    expect(rest).toBe("after its input\n");
    const next = connect({ command: "sh", args: ["-c", "echo $PPID"] });
    let printed = "";
    for await (const chunk of await next.stdout) printed += String(chunk);
    expect(Number(printed)).not.toBe(launcherPid);
  });

  it("drops a connection that names no launch, and rejects the sockets of a process that could not start", async () => {
    const stranger = net.connect(rendezvous().path);
    stranger.write(randomBytes(TOKEN_BYTES));
    stranger.resume();
    await once(stranger, "close");

    const failed = connect({ command: "/nonexistent/command", args: [] });
    const [exit] = await failed.exited;
    expect(exit.error).toMatch(/ENOENT/);
    // Connected before the spawn failed (the launcher connects first), or forgotten: either way it ends empty.
    const stdout = await failed.stdout.catch(() => null);
    const printed: Buffer[] = [];
    if (stdout) for await (const chunk of stdout) printed.push(chunk);
    expect(printed).toEqual([]);
  });

  it("removes the rendezvous directory a killed server left behind, and only that", async () => {
    const gone = spawn("true");
    await once(gone, "exit");
    const leftBehind = fs.mkdtempSync(path.join(os.tmpdir(), `svc-launch-${gone.pid}-`));
    const ours = fs.mkdtempSync(path.join(os.tmpdir(), `svc-launch-${process.pid}-`));
    try {
      removeLeftBehind();
      expect(fs.existsSync(leftBehind)).toBe(false);
      expect(fs.existsSync(ours)).toBe(true);
    } finally {
      fs.rmSync(ours, { recursive: true, force: true });
    }
  });
});
