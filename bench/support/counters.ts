// Counts what a request costs beyond CPU: SQL statements sent to the embedded database (each
// statement the server's thread hands PGlite's worker thread: a Prisma query, a raw statement, a
// transaction's BEGIN, COMMIT or ROLLBACK) and processes spawned. Install before the app's modules load.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { Worker } from "node:worker_threads";

export const counts = { statements: 0, spawns: 0, spawned: [] as string[] };

/** The worker protocol's operations that are one statement each (server/db/pglite-thread.ts). */
const STATEMENTS: Record<string, (message: { query?: { sql: string }; sql?: string; script?: string }) => string> = {
  query: (m) => m.query!.sql,
  execute: (m) => m.query!.sql,
  rawQuery: (m) => m.sql!,
  rawExec: (m) => m.sql!,
  script: (m) => m.script!,
  commit: () => "COMMIT",
  rollback: () => "ROLLBACK",
};

export async function installCounters(): Promise<void> {
  const postMessage = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
    const statement = STATEMENTS[(message as { op?: string })?.op ?? ""];
    if (statement) {
      // A transaction's first statement carries its BEGIN: counted (and logged) as the statement it is.
      if ((message as { begin?: unknown }).begin) {
        counts.statements++;
        if (process.env.BENCH_LOG_SQL) console.error("[sql] BEGIN");
      }
      counts.statements++;
      if (process.env.BENCH_LOG_SQL)
        console.error(
          `[sql] ${statement(message as never)
            .slice(0, 300)
            .replace(/\s+/g, " ")}`,
        );
    }
    return (postMessage as (...args: unknown[]) => void).call(this, message, ...rest);
  };
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], ...rest: unknown[]) => {
    counts.spawns++;
    counts.spawned.push(
      `${command} ${(args ?? [])
        .filter((a) => !a.startsWith("-") && !a.includes("/"))
        .slice(0, 1)
        .join(" ")}`.trim(),
    );
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
