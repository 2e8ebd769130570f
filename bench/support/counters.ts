// Counts what a request costs beyond CPU: SQL statements sent to the embedded database (PGlite's
// wire messages that start a statement: simple Query, or Parse of the extended protocol) and
// processes spawned. Install before the app's modules load.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

export const counts = { statements: 0, spawns: 0, spawned: [] as string[] };

export async function installCounters(): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  const proto = PGlite.prototype as unknown as Record<string, (message: Uint8Array, ...rest: unknown[]) => unknown>;
  for (const name of ["execProtocol", "execProtocolStream"]) {
    const original = proto[name];
    proto[name] = function (this: unknown, message: Uint8Array, ...rest: unknown[]) {
      if (message[0] === 0x51 || message[0] === 0x50) {
        counts.statements++; // 'Q' or 'P'
        if (process.env.BENCH_LOG_SQL) console.error(`[sql] ${Buffer.from(message.subarray(5, 300)).toString("latin1").replace(/\0/g, " ").trim()}`);
      }
      return original.call(this, message, ...rest);
    };
  }
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], ...rest: unknown[]) => {
    counts.spawns++;
    counts.spawned.push(`${command} ${(args ?? []).filter((a) => !a.startsWith("-") && !a.includes("/")).slice(0, 1).join(" ")}`.trim());
    return (spawn as (...a: unknown[]) => unknown)(command, args, ...rest);
  }) as typeof childProcess.spawn;
  syncBuiltinESMExports();
}

/** The statements and spawns `work` caused (nothing else must run meanwhile). */
export async function counted<T>(work: () => Promise<T>): Promise<{ result: T; statements: number; spawns: string[] }> {
  const statements = counts.statements;
  const spawned = counts.spawned.length;
  const result = await work();
  return { result, statements: counts.statements - statements, spawns: counts.spawned.slice(spawned) };
}
