import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { log } from "@/server/log";

/** The raw-driver surface the migrator needs; PGlite and pg both fit behind it. */
export interface RawSql {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

// The advisory-lock key `prisma migrate deploy` uses, so both never run at once.
const MIGRATE_LOCK_KEY = 72707369;

export const migrationsDir = () => path.resolve(process.cwd(), "prisma/migrations");

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Applies every pending migration folder in order, one transaction each, Prisma Migrate-compatible. */
export async function applyMigrations(sql: RawSql, dir = migrationsDir()): Promise<string[]> {
  const names = fs.existsSync(/*turbopackIgnore: true*/ dir)
    ? fs
        .readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  const applied: string[] = [];
  await sql.query("SELECT pg_advisory_lock($1)", [MIGRATE_LOCK_KEY]);
  try {
    await sql.exec(CREATE_TABLE);
    const done = await sql.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const doneByName = new Map(done.map((row) => [row.migration_name, row.checksum]));
    for (const name of names) {
      const file = path.join(dir, name, "migration.sql");
      const script = fs.readFileSync(file, "utf8");
      const checksum = crypto.createHash("sha256").update(script).digest("hex");
      const recorded = doneByName.get(name);
      if (recorded !== undefined) {
        if (recorded !== checksum)
          log().warn({ migration: name }, "migrate: a migration was modified after it was applied");
        continue;
      }
      const id = crypto.randomUUID();
      await sql.exec("BEGIN");
      try {
        await sql.exec(script);
        await sql.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES ($1, $2, now(), $3, 1, now())`,
          [id, checksum, name],
        );
        await sql.exec("COMMIT");
      } catch (error) {
        await sql.exec("ROLLBACK");
        throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(name);
    }
  } finally {
    await sql.query("SELECT pg_advisory_unlock($1)", [MIGRATE_LOCK_KEY]);
  }
  return applied;
}
