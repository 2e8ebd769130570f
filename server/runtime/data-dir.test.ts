import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { db } from "@/server/db";
import { runBackup } from "@/server/backup";
import { seal } from "@/server/keys";
import { projectWith } from "@/server/changes/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { protectDataDir } from "./data-dir";

const env = useTestEnvironment();
const started = process.umask(0);
afterAll(() => void process.umask(started));

/** Every path under `dir` whose mode lets anyone but the owner in. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (fs.lstatSync(file).mode & 0o077) found.push(`${file} ${(fs.lstatSync(file).mode & 0o777).toString(8)}`);
  }
  return found;
}

it("keeps DATA_DIR the owner's alone (0700 directories, 0600 files) whatever the umask the process started with", async () => {
  fs.chmodSync(env.dataDir, 0o777);
  protectDataDir();
  expect(fs.statSync(env.dataDir).mode & 0o777).toBe(0o700);

  const owner = await createTestUser();
  await projectWith(owner.token, { "README.md": "private\n" });
  seal("webhook-secret", "generates DATA_DIR/secret-key");
  const backup = await (await db()).backup.create({ data: { id: `bak_modes_${Date.now()}` } });
  expect(await runBackup(backup.id)).toMatchObject({ status: "completed" });

  expect(fs.readdirSync(env.dataDir).sort()).toEqual(expect.arrayContaining(["backups", "repos", "secret-key"]));
  expect(openToOthers(env.dataDir)).toEqual([]);
});
