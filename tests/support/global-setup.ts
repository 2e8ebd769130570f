import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "../../server/db/migrate";
import { TEMPLATE_DB_NAME, adminUrl } from "./postgres";

/**
 * Migrates once per test run. PGlite: a migrated data directory on disk that every test file opens
 * a copy of (0.7-1.3 s against 4.0-6.6 s for loading the same 41 MB as a dump into memory, measured
 * beside a CI run), and that dump (pglite-thread.test.ts opens databases from it). PostgreSQL
 * (TEST_DATABASE_URL): a migrated template database.
 */
export default async function setup(project: TestProject): Promise<void | (() => void)> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: adminUrl(pgUrl) });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB_NAME}`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB_NAME}`);
    await admin.end();
    const client = new pg.Client({ connectionString: withDatabase(pgUrl, TEMPLATE_DB_NAME) });
    await client.connect();
    await applyMigrations({
      exec: async (sql) => void (await client.query(sql)),
      query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
    });
    await client.end();
    return;
  }
  const pglite = new PGlite("memory://");
  await applyMigrations({
    exec: async (sql) => void (await pglite.exec(sql)),
    query: async (sql, params) => (await pglite.query(sql, params)).rows as never[],
  });
  const dump = await pglite.dumpDataDir("none");
  await pglite.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
  const file = path.join(dir, "template.tar");
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteDump", file);
  const dataDir = path.join(dir, "template-db");
  await (await PGlite.create(dataDir, { loadDataDir: dump })).close();
  project.provide("pgliteDataDir", dataDir);
  // The test files' copies are made in here too: a file's process that was killed leaves its copy to this.
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDump: string;
    pgliteDataDir: string;
  }
}
