import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { projectWith } from "@/server/changes/test-fixtures";
import { completedBackup, membersOf, packArchive, restoreArchive, switchToFreshInstance } from "@/tests/support/backup";
import { useTestEnvironment } from "@/tests/support/harness";
import { useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment({ AUTH_CACHE_TTL_SECONDS: "0" });
useTestJobs();

type Manifest = {
  database: { tables: Record<string, number> };
  repositories: Array<{ bundle: string | null; head: string; workspace?: string }>;
};
let members: Map<string, Buffer>;
let manifest: Manifest;

beforeAll(async () => {
  const owner = await createTestUser();
  await projectWith(owner.token, { "README.md": "confined\n" });
  members = await membersOf((await completedBackup()).archive);
  manifest = JSON.parse(members.get("manifest.json")!.toString("utf8"));
  await switchToFreshInstance();
}, 120_000);

/** The backup with its manifest edited (and, when given, only these members besides it). */
async function restoreEdited(edit: (manifest: Manifest) => void, keep?: (name: string) => boolean) {
  const edited = structuredClone(manifest);
  edit(edited);
  const others = [...members].filter(([name]) => name !== "manifest.json" && (keep?.(name) ?? true));
  const { restore } = await restoreArchive(
    await packArchive([["manifest.json", Buffer.from(JSON.stringify(edited))], ...others]),
  );
  expect(restore.status, JSON.stringify(restore)).toBe("failed");
  expect(restore.code).toBe("BACKUP_INVALID");
  expect(await (await db()).project.count()).toBe(0);
  return restore.error as string;
}

const project = (m: Manifest) => m.repositories.find((repository) => !repository.workspace)!;

describe("restore confines what the manifest names", () => {
  it("reads a bundle only from the archive: a path outside it is refused the same whether the file exists or not", async () => {
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-oracle-")), "secret.bundle");
    fs.writeFileSync(outside, "not for restores");
    const relative = path.relative(path.join(os.tmpdir(), "x", "y"), outside);
    const existing = await restoreEdited((m) => void (project(m).bundle = `../../../../../../../..${outside}`));
    const missing = await restoreEdited((m) => void (project(m).bundle = `../../../../../../../..${outside}.gone`));
    const nearby = await restoreEdited((m) => void (project(m).bundle = relative));
    for (const error of [existing, missing, nearby]) {
      expect(error).toMatch(/is not a bundle of the archive/);
      expect(error).not.toMatch(/sha256|missing/);
    }
  });

  it("refuses a head or a ref that is not a valid name (no path into the repository)", async () => {
    expect(await restoreEdited((m) => void (project(m).head = "../../../../tmp/X"))).toMatch(
      /head is not a valid branch name/,
    );
    expect(
      await restoreEdited((m) => {
        const entry = project(m) as unknown as { refs: Record<string, string> };
        entry.refs["refs/heads/../../../../tmp/Y"] = Object.values(entry.refs)[0];
      }),
    ).toMatch(/manifest\.json/);
  });

  it("refuses an archive whose tables hold no user", async () => {
    const error = await restoreEdited(
      (m) => {
        m.database.tables = {};
        m.repositories = [];
      },
      () => false,
    );
    expect(error).toMatch(/no users/);
  });
});
