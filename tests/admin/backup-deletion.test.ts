import { expect, it } from "vitest";
import { db } from "@/server/db";
import { runBackup } from "@/server/backup";
import { projectWith } from "@/server/changes/test-fixtures";
import { backupArchive, membersOf } from "@/tests/support/backup";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment();
useTestJobs();

it("a backup taken while projects are being deleted completes, each project wholly in it or wholly absent", async () => {
  const owner = await createTestUser();
  const projects = [];
  for (let i = 0; i < 8; i++) projects.push(await projectWith(owner.token, { "README.md": `doomed ${i}\n` }));
  for (const project of projects) {
    expect((await call("DELETE", `/api/projects/${project.path}`, { token: owner.token, body: { confirm: project.path } })).status).toBe(202);
  }
  const backup = await (await db()).backup.create({ data: { id: `bak_deleting_${Date.now()}` } });
  const [done] = await Promise.all([runBackup(backup.id), drainJobs()]);
  expect(done, JSON.stringify(done)).toMatchObject({ status: "completed" });

  const members = await membersOf(await backupArchive(backup.id));
  const manifest = JSON.parse(members.get("manifest.json")!.toString("utf8"));
  const rows = members.get("database/Project.ndjson")!.toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).id as string);
  for (const project of projects) {
    const entry = manifest.repositories.find((r: { projectId: string; workspace?: string }) => r.projectId === project.id && !r.workspace);
    expect(Boolean(entry), project.id).toBe(rows.includes(project.id));
    if (entry) expect(members.has(entry.bundle), project.id).toBe(true);
  }
  expect(await (await db()).project.count({ where: { id: { in: projects.map((p) => p.id) } } })).toBe(0);
}, 120_000);
