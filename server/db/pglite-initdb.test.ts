import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "./client";

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

// initdb draws a cluster's system identifier at random: two data directories that share one were
// copied from one initdb (pglite-initdb.mjs), whether this run made the copy kept or found it.
it("makes a new data directory as a copy of initdb's first output, which opens and keeps its data", async () => {
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
});
