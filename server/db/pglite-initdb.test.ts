import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "./client";
// @ts-expect-error: a plain JavaScript module of the initdb child, without types.
import { KEPT_INITDB_DIR } from "./pglite-initdb-kept.mjs";

const parent = fs.mkdtempSync(path.join(os.tmpdir(), "svc-initdb-"));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

async function systemIdentifier(dataDir: string): Promise<string> {
  const database = await openDatabase({ dataDir, migrate: false });
  try {
    const [row] = await database.raw.query<{ id: string }>(
      "SELECT system_identifier::text AS id FROM pg_control_system()",
    );
    return row.id;
  } finally {
    await database.close();
  }
}

/** Each test starts initdb's WebAssembly in child processes: 13-18 s in CI beside the other pass, over 30 under more load. */
const INITDB_TEST_TIMEOUT_MS = 90_000;

// initdb draws a cluster's system identifier at random: two data directories that share one were
// copied from one initdb (pglite-initdb.mjs), whether this run made the copy kept or found it.
it(
  "makes a new data directory as a copy of initdb's first output, which opens and keeps its data",
  async () => {
    const first = await systemIdentifier(path.join(parent, "first"));
    const second = await systemIdentifier(path.join(parent, "second"));
    expect(second).toBe(first);

    const database = await openDatabase({ dataDir: path.join(parent, "second"), migrate: false });
    try {
      await database.raw.exec("CREATE TABLE kept (value text); INSERT INTO kept VALUES ('here')");
    } finally {
      await database.close();
    }
    const reopened = await openDatabase({ dataDir: path.join(parent, "second"), migrate: false });
    try {
      expect(await reopened.raw.query("SELECT value FROM kept")).toEqual([{ value: "here" }]);
    } finally {
      await reopened.close();
    }
  },
  INITDB_TEST_TIMEOUT_MS,
);

it(
  "leaves the new data directory's folders the owner's alone, whatever the modes of the copy it came from",
  async () => {
    await (await openDatabase({ dataDir: path.join(parent, "makes-the-copy"), migrate: false })).close();
    // The kept copy as a process under umask 022 makes it (PGlite writes its files 0666 in any case).
    for (const entry of fs.readdirSync(KEPT_INITDB_DIR, { withFileTypes: true, recursive: true }))
      if (entry.isDirectory()) fs.chmodSync(path.join(entry.parentPath, entry.name), 0o755);

    const dataDir = path.join(parent, "modes");
    await (await openDatabase({ dataDir, migrate: false })).close();
    const open = [
      dataDir,
      ...fs.readdirSync(dataDir, { recursive: true, encoding: "utf8" }).map((name) => path.join(dataDir, name)),
    ].filter((file) => fs.statSync(file).isDirectory() && fs.statSync(file).mode & 0o077);
    expect(open).toEqual([]);
  },
  INITDB_TEST_TIMEOUT_MS,
);
