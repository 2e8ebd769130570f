import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db, type Tx } from "@/server/db";
import { allRefs, openProjectRepo, openWorkspaceRepo } from "@/server/git";
import { tablesInDependencyOrder } from "@/server/backup/tables";
import { runBackup, runBackupCommand } from "@/server/backup";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import {
  backupArchive,
  completedBackup,
  membersOf,
  packArchive,
  restoreArchive as restore,
  switchToFreshInstance,
} from "@/tests/support/backup";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";
import { config } from "@/server/config";
import { toHttpError } from "@/server/http";
import { secretValues } from "@/server/secrets";
import { withEnv } from "@/tests/support/env";

// No credential cache: a token must be checked against the instance it is sent to.
useTestEnvironment({
  AUTH_CACHE_TTL_SECONDS: "0",
  DEPLOY_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
  ALLOW_PRIVATE_TARGETS: "1",
});
useTestJobs();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };

/** Every row of every table a backup holds, as sorted JSON text, and every ref of every repository. */
async function instanceState() {
  const prisma = await db();
  const tables: Record<string, string[]> = {};
  await prisma.$transaction(async (tx: Tx) => {
    for (const table of await tablesInDependencyOrder(tx)) {
      const rows = await tx.$queryRawUnsafe<Array<{ row: string }>>(
        `SELECT row_to_json(t)::text AS row FROM "${table}" t`,
      );
      tables[table] = rows.map((r) => r.row).sort();
    }
  });
  const refs: Record<string, Record<string, string>> = {};
  for (const project of await prisma.project.findMany({ include: { workspaces: true } })) {
    refs[project.id] = Object.fromEntries(allRefs(openProjectRepo(project.id)));
    for (const workspace of project.workspaces)
      refs[`${project.id}/${workspace.name}`] = Object.fromEntries(
        allRefs(openWorkspaceRepo(project.id, workspace.name)),
      );
  }
  return { tables, refs };
}

describe("backup and restore", () => {
  it("refuses callers without administrator credentials and answers 404/409 on unknown or unfinished backups", async () => {
    const user = await createTestUser();
    expect((await call("POST", "/api/admin/backups", { token: user.token })).status).toBe(403);
    expect((await call("GET", "/api/admin/backups")).status).toBe(401);
    expect((await call("GET", "/api/admin/backups/bak_missing", { headers: ADMIN })).status).toBe(404);
    expect((await call("GET", "/api/admin/backups/bak_missing/archive", { headers: ADMIN })).status).toBe(404);
    expect((await call("GET", "/api/admin/restore/rst_missing", { headers: ADMIN })).status).toBe(404);
    expect((await call("POST", "/api/admin/restore", { token: user.token, body: new Uint8Array([1]) })).status).toBe(
      403,
    );
    const running = await call("POST", "/api/admin/backups", { headers: ADMIN });
    const early = await call("GET", `/api/admin/backups/${running.body.backup.id}/archive`, { headers: ADMIN });
    expect(early.status).toBe(409);
    await drainJobs();
    const listed = await call("GET", "/api/admin/backups", { headers: ADMIN });
    expect(listed.body.backups[0]).toMatchObject({ id: running.body.backup.id, status: "completed" });
  });

  it("writes the manifest, rows and bundles, then restores into an empty instance where everything works as before", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hello\n", "src/a.txt": "1\n" });
    const { change } = await changeWith(owner.token, project, { "src/a.txt": "2\n" });
    expect((await merge(owner.token, change.id)).status).toBe(200);
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: owner.token,
      body: { title: "kept" },
    });
    expect(issue.status).toBe(201);
    const hook = await call("POST", `/api/projects/${project.path}/webhooks`, {
      token: owner.token,
      body: { url: "http://127.0.0.1:9/h", events: "issue.opened", secret: "s3cret-value" },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    await drainJobs();

    const { archive } = await completedBackup();
    const members = await membersOf(archive);
    const manifest = JSON.parse(members.get("manifest.json")!.toString("utf8"));
    expect(manifest).toMatchObject({ format: 1, serviceVersion: expect.any(String) });
    expect(manifest.database.tables.Change).toBe(1);
    expect(Object.keys(manifest.database.tables)).not.toContain("JobRun");
    const projectEntry = manifest.repositories.find(
      (r: { projectId: string; workspace?: string }) => r.projectId === project.id && !r.workspace,
    );
    expect(projectEntry.refs["refs/heads/main"]).toMatch(/^[0-9a-f]{40}$/);
    expect(members.has(projectEntry.bundle)).toBe(true);
    expect(archive.length).toBeGreaterThan(0);
    const before = await instanceState();

    await switchToFreshInstance();
    expect((await call("GET", `/api/projects/${project.path}`, { token: owner.token })).status).toBe(401);
    const { accepted, restore: restored } = await restore(archive);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(restored, JSON.stringify(restored)).toMatchObject({
      status: "completed",
      projects: expect.any(Number),
      error: null,
    });

    const after = await instanceState();
    const { AuditLog: auditBefore, ...restBefore } = before.tables;
    const { AuditLog: auditAfter, ...restAfter } = after.tables;
    expect(restAfter).toEqual(restBefore);
    expect(auditAfter.length).toBe(auditBefore.length + 1);
    expect(after.refs).toEqual(before.refs);

    // The old credentials, projects, history, issues and webhooks work as before.
    const got = await call("GET", `/api/projects/${project.path}`, { token: owner.token });
    expect(got.status).toBe(200);
    const file = await call("GET", `/api/projects/${project.path}/content?path=src/a.txt`, { token: owner.token });
    expect(file.status).toBe(200);
    expect(JSON.stringify(file.body)).toContain("2\\n");
    expect((await call("GET", `/api/changes/${change.id}`, { token: owner.token })).body.change.status).toBe("merged");
    expect(
      (
        await call("GET", `/api/projects/${project.path}/issues/${issue.body.issue?.number ?? issue.body.number}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("POST", `/api/projects/${project.path}/issues`, {
          token: owner.token,
          body: { title: "after restore" },
        })
      ).status,
    ).toBe(201);
    expect((await call("GET", "/api/admin/audit/verify", { headers: ADMIN })).body).toMatchObject({ ok: true });
    const audit = await call("GET", "/api/admin/audit?action=restore.completed", { headers: ADMIN });
    expect(audit.body.entries[0]).toMatchObject({ actor: "admin-key" });

    const again = await restore(archive);
    expect(again.accepted.status).toBe(409);
    expect(again.accepted.body.code).toBe("INSTANCE_NOT_EMPTY");
  }, 120_000);

  it("refuses an archive whose bundle does not match the manifest, and leaves the instance empty", async () => {
    const owner = await createTestUser();
    await projectWith(owner.token, { "README.md": "tampered\n" });
    const { archive } = await completedBackup();
    const members = await membersOf(archive);
    const tampered = await packArchive(
      [...members].map(([name, content]) => [
        name,
        name.endsWith(".bundle") ? Buffer.concat([content, Buffer.from("x")]) : content,
      ]),
    );

    await switchToFreshInstance();
    const { restore: failed } = await restore(tampered);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/sha256/);
    expect(await (await db()).project.count()).toBe(0);
    const repos = path.join(process.env.DATA_DIR!, "repos");
    expect(fs.existsSync(repos) ? fs.readdirSync(repos) : []).toEqual([]);

    const garbage = await restore(new TextEncoder().encode("not a tar archive"));
    expect(garbage.restore.status).toBe("failed");
  }, 120_000);

  it("writes racing a backup are either wholly in it or wholly after it", async () => {
    const owner = await createTestUser();
    const projects = await Promise.all([0, 1, 2].map((i) => projectWith(owner.token, { "README.md": `race ${i}\n` })));
    const changes = [];
    for (const project of projects)
      changes.push((await changeWith(owner.token, project, { "x.txt": `${project.id}\n` })).change);
    const prisma = await db();
    const backup = await prisma.backup.create({ data: { id: `bak_race_${Date.now()}` } });
    const [done] = await Promise.all([
      runBackup(backup.id),
      ...changes.map((change) => merge(owner.token, change.id)),
      ...projects.map((project) =>
        call("POST", `/api/projects/${project.path}/issues`, { token: owner.token, body: { title: "racing" } }),
      ),
    ]);
    expect(done?.status).toBe("completed");
    const members = await membersOf(await backupArchive(backup.id));
    const manifest = JSON.parse(members.get("manifest.json")!.toString("utf8"));
    const changeRows = members
      .get("database/Change.ndjson")!
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    for (const [index, change] of changes.entries()) {
      const row = changeRows.find((r) => r.id === change.id);
      const entry = manifest.repositories.find(
        (r: { projectId: string; workspace?: string }) => r.projectId === projects[index].id && !r.workspace,
      );
      const merged = row.status === "merged";
      // A merge in the backup has its branch at the merge commit; one after it left both untouched.
      if (merged) expect(entry.refs["refs/heads/main"]).toBe(row.mergedSha);
      else expect(entry.refs["refs/heads/main"]).toBe(projects[index].commit);
    }
  });

  it("refuses an upload over RESTORE_ARCHIVE_BYTES_MAX with 413 as it streams in, keeping nothing of it", async () => {
    await switchToFreshInstance();
    const uploads = path.join(config.backupDir, "restores");
    await withEnv({ RESTORE_ARCHIVE_BYTES_MAX: "1024" }, async () => {
      const streamed = await call("POST", "/api/admin/restore", {
        headers: { ...ADMIN, "content-type": "application/x-tar" },
        body: new Uint8Array(1025),
      });
      expect(streamed.status).toBe(413);
      expect(streamed.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([]);
      const declared = await call("POST", "/api/admin/restore", {
        headers: { ...ADMIN, "content-type": "application/x-tar", "content-length": "5000000" },
        body: new Uint8Array(10),
      });
      expect(declared.status).toBe(413);
      expect(await (await db()).restore.count()).toBe(0);
      const atTheCap = await restore(new Uint8Array(1024));
      expect(atTheCap.accepted.status).toBe(202);
      expect(atTheCap.restore).toMatchObject({ status: "failed", code: "BACKUP_INVALID" });
    });
  });

  it("bounds each repository's restore (PUSH_TIMEOUT), needs the deploy secret key, and keeps nothing of a failed restore", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "bounded\n" });
    const secret = await call("PUT", `/api/projects/${project.path}/secrets/API_TOKEN`, {
      token: owner.token,
      body: { value: "tok-123" },
    });
    expect(secret.status, JSON.stringify(secret.body)).toBe(201);
    const { archive } = await completedBackup();
    await switchToFreshInstance();
    const assertNothingRestored = async () => {
      expect(await (await db()).project.count()).toBe(0);
      const repos = path.join(config.dataDir, "repos");
      expect(fs.existsSync(repos) ? fs.readdirSync(repos) : []).toEqual([]);
    };

    await withEnv({ RESTORE_PUSH_TIMEOUT_MS: "1" }, async () => {
      const { restore: timedOut } = await restore(archive);
      expect(timedOut).toMatchObject({ status: "failed", code: "PUSH_TIMEOUT", projects: null });
      expect(timedOut.error).toContain(`project ${project.id} took longer than 1 ms`);
      await assertNothingRestored();
      // The operator command fails the same way, with the catalogue's 504.
      const file = path.join(config.dataDir, "upload.tar");
      fs.writeFileSync(file, archive);
      const failure = toHttpError(await runBackupCommand(["restore", file])!.catch((error: unknown) => error));
      expect({ status: failure.status, code: failure.code }).toEqual({ status: 504, code: "PUSH_TIMEOUT" });
      await assertNothingRestored();
    });

    await withEnv({ DEPLOY_SECRET_KEY: Buffer.alloc(32, 9).toString("base64") }, async () => {
      const { restore: refused } = await restore(archive);
      expect(refused).toMatchObject({ status: "failed", code: "DEPLOY_SECRET_KEY_MISSING" });
      expect(refused.error).toMatch(/DEPLOY_SECRET_KEY/);
      await assertNothingRestored();
    });

    const { restore: restored } = await restore(archive);
    expect(restored).toMatchObject({ status: "completed", projects: 1, code: null });
    expect(await secretValues(project.id, ["API_TOKEN"])).toEqual({ values: { API_TOKEN: "tok-123" }, missing: [] });
    expect(
      (await call("GET", `/api/projects/${project.path}/content?path=README.md`, { token: owner.token })).status,
    ).toBe(200);
  }, 120_000);
});
