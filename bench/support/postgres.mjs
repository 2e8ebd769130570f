// A throwaway PostgreSQL cluster on 127.0.0.1 for benchmarks that need one, made as
// scripts/test-postgres.sh makes the test cluster (initdb of the newest server under
// /usr/lib/postgresql/*/bin or /usr/local/bin; run as `postgres` when we are root).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

function postgresBin() {
  const versions = fs.existsSync("/usr/lib/postgresql")
    ? fs.readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b))
    : [];
  const candidates = [...versions.reverse().map((v) => `/usr/lib/postgresql/${v}/bin`), "/usr/local/bin"];
  const bin = candidates.find((dir) => fs.existsSync(path.join(dir, "initdb")));
  if (!bin) throw new Error("no PostgreSQL server found (initdb under /usr/lib/postgresql/*/bin or /usr/local/bin)");
  return bin;
}

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * Starts a cluster; resolves to its `url` and a `stop()` that removes it. With `statements`, the
 * cluster loads pg_stat_statements and `topStatements(n)` answers its n most costly statements.
 */
export async function startPostgres({ maxConnections = 300, statements = false } = {}) {
  const bin = postgresBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, args) =>
    execFileSync(asRoot ? "runuser" : cmd, asRoot ? ["-u", "postgres", "--", cmd, ...args] : args, {
      stdio: ["ignore", "ignore", "inherit"],
    });
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  const port = await freePort();
  run(path.join(bin, "initdb"), ["-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=${maxConnections} -c fsync=off -c synchronous_commit=off -c full_page_writes=off${statements ? " -c shared_preload_libraries=pg_stat_statements" : ""}`;
  run(path.join(bin, "pg_ctl"), ["-D", `${dir}/data`, "-l", `${dir}/log`, "-w", "-o", options, "start"]);
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const psql = (sql) =>
    execFileSync(path.join(bin, "psql"), [url, "-X", "-A", "-F", "\t", "-P", "footer=off", "-c", sql], {
      encoding: "utf8",
    });
  if (statements) psql("CREATE EXTENSION pg_stat_statements");
  return {
    url,
    /** The n statements with the most execution time, as TSV: calls, total and mean ms, rows, the statement. */
    topStatements: (n = 40) =>
      psql(`SELECT calls, round(total_exec_time) AS total_ms, round(mean_exec_time::numeric, 2) AS mean_ms, rows,
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 300) AS query
              FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT ${n}`),
    /**
     * Samples the server's connections (pg_stat_activity) every `everyMs` until `stop()`, which
     * answers: per state (active, idle in transaction, idle) the mean and most connections in it, the
     * active ones waiting on a lock, and the statements most often last sent by a connection idle in
     * a transaction (the pool's connections a transaction holds while the server does something else).
     */
    async sampleConnections({ everyMs = 250 } = {}) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const byState = new Map();
      const idleInTransaction = new Map();
      let samples = 0;
      let failedSamples = 0;
      let sampling = Promise.resolve();
      const timer = setInterval(() => {
        sampling = client
          .query(
            `SELECT state, wait_event_type, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
               FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
          )
          .then(({ rows }) => {
            samples++;
            const counts = { active: 0, "active, waiting on a lock": 0, "idle in transaction": 0, idle: 0 };
            for (const row of rows) {
              counts[row.state] = (counts[row.state] ?? 0) + 1;
              if (row.state === "active" && row.wait_event_type === "Lock") counts["active, waiting on a lock"]++;
              if (row.state === "idle in transaction")
                idleInTransaction.set(row.query, (idleInTransaction.get(row.query) ?? 0) + 1);
            }
            for (const [state, count] of Object.entries(counts)) {
              const seen = byState.get(state) ?? { sum: 0, most: 0 };
              byState.set(state, { sum: seen.sum + count, most: Math.max(seen.most, count) });
            }
          })
          // A sample the cluster did not answer is counted, not thrown at the process.
          .catch(() => failedSamples++);
      }, everyMs);
      return {
        async stop() {
          clearInterval(timer);
          await sampling;
          await client.end();
          return {
            samples,
            failedSamples,
            states: Object.fromEntries(
              [...byState].map(([state, { sum, most }]) => [state, { mean: +(sum / samples).toFixed(1), most }]),
            ),
            idleInTransactionAfter: [...idleInTransaction]
              .sort((a, b) => b[1] - a[1])
              .slice(0, 8)
              .map(([query, count]) => ({ samples: count, query })),
          };
        },
      };
    },
    stop() {
      try {
        run(path.join(bin, "pg_ctl"), ["-D", `${dir}/data`, "-m", "immediate", "stop"]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
