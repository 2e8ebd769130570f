import { describe, expect, it } from "vitest";
import { startProcesses, type ProcessSpec } from "./spawner";

const sh = (script: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  file: "sh",
  args: ["-c", script],
  stdout: "pipe",
  stderr: "pipe",
  ...extra,
});

/** Starts a group and gathers what each process wrote, by stream. */
async function run(processes: ProcessSpec[]) {
  const output: string[] = [];
  const group = startProcesses(processes, (index, stream, chunk) =>
    output.push(`${index} ${stream} ${chunk.toString("utf8")}`),
  );
  return { ends: await group.ended, output: output.join("") };
}

describe("processes started off the server's thread", () => {
  it("pipes each process into the next, and answers every exit in order with the last one's output", async () => {
    const { ends, output } = await run([
      sh("printf 'a\\nb\\nc\\n'; echo oops >&2; exit 3"),
      sh("wc -l; cat >/dev/null; exit 0"),
    ]);
    expect(ends).toEqual([
      { code: 3, signal: null },
      { code: 0, signal: null },
    ]);
    expect(output).toContain("0 stderr oops");
    expect(output.replace(/\s+/g, " ")).toContain("1 stdout 3");
  });

  it("hands fd 3 its bytes, then closes it", async () => {
    const { ends, output } = await run([sh("cat <&3", { fd3: Buffer.from("options\0for bwrap") })]);
    expect(ends).toEqual([{ code: 0, signal: null }]);
    expect(output).toBe("0 stdout options\0for bwrap");
  });

  it("says why a process could not start", async () => {
    const { ends } = await run([{ file: "/nonexistent/command", args: [], stdout: "ignore", stderr: "ignore" }]);
    expect(ends[0]).toMatchObject({ error: expect.stringContaining("ENOENT"), code: "ENOENT" });
  });

  it("kills the whole group on request", async () => {
    const group = startProcesses([sh("exec sleep 30", { stdout: "ignore" })], () => undefined);
    group.kill("SIGKILL");
    expect(await group.ended).toEqual([{ code: null, signal: "SIGKILL" }]);
  });
});
