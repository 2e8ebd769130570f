import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { closeDatabase, openDatabase, useDatabase, type Database } from "@/server/db/client";
import { queuesSettled, runnersSettled } from "@/server/changes";
import { registerSubscribers } from "@/server/runtime/subscribers";
import { TEMPLATE_DB_NAME, adminUrl } from "./postgres";

export const TEST_ADMIN_KEY = "test-admin-key";

export async function openTestDatabase(): Promise<{ database: Database; url?: string; drop(): Promise<void> }> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const pg = (await import("pg")).default;
    const name = `svc_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    const admin = new pg.Client({ connectionString: adminUrl(pgUrl) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB_NAME}`);
    await admin.end();
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), migrate: false });
    return {
      database,
      url: url.toString(),
      async drop() {
        // Without FORCE: killing connections that are still closing raises errors in the test
        // process. A database some straggler still holds is left to the throwaway cluster.
        const again = new pg.Client({ connectionString: adminUrl(pgUrl) });
        await again.connect();
        await again.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
        await again.end();
      },
    };
  }
  const { dataDir, remove } = copyOfPgliteTemplate();
  const database = await openDatabase({ dataDir, migrate: false });
  return { database, drop: async () => remove() };
}

/**
 * A copy of the migrated PGlite template on disk, beside it (the run's teardown removes what is
 * left): one a test switches to (switchToFreshInstance) is never dropped, so every copy also goes
 * when the file's process does.
 */
export function copyOfPgliteTemplate(): { dataDir: string; remove(): void } {
  const template = inject("pgliteDataDir");
  const copy = fs.mkdtempSync(path.join(path.dirname(template), "copy-"));
  const remove = () => fs.rmSync(copy, { recursive: true, force: true });
  process.once("exit", remove);
  const dataDir = path.join(copy, "db");
  fs.cpSync(template, dataDir, { recursive: true });
  return { dataDir, remove };
}

export interface TestEnvironment {
  /** A private DATA_DIR for this test file (repositories etc.). */
  dataDir: string;
  database: Database;
  /** This file's PostgreSQL database (only when TEST_DATABASE_URL is set). */
  databaseUrl?: string;
}

/**
 * Gives the calling test file its own database (PGlite from the migrated template, or a fresh
 * PostgreSQL database when TEST_DATABASE_URL is set) and its own DATA_DIR.
 */
export function useTestEnvironment(env: Record<string, string> = {}): TestEnvironment {
  const state = {} as TestEnvironment;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    registerSubscribers();
    state.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-data-"));
    // In-process requests carry no client address: every anonymous request of a file shares one budget.
    Object.assign(process.env, {
      DATA_DIR: state.dataDir,
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      BASE_URL: "http://svc.test",
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1000000",
      LOG_LEVEL: "silent",
      ...env,
    });
    const opened = await openTestDatabase();
    state.database = opened.database;
    state.databaseUrl = opened.url;
    drop = opened.drop;
    useDatabase(opened.database);
  });
  afterAll(async () => {
    // A queue run a test woke (a route, a branch move) finishes before its database closes.
    await queuesSettled();
    await runnersSettled();
    await closeDatabase();
    await drop();
    fs.rmSync(state.dataDir, { recursive: true, force: true });
  });
  return state;
}
