import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import tar from "tar-stream";
import { expect } from "vitest";
import { forgetGrants } from "@/server/access";
import { useDatabase } from "@/server/db/client";
import { openTestDatabase, TEST_ADMIN_KEY } from "./harness";
import { call } from "./http";
import { drainJobs, startTestExecutor } from "./jobs";

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };

/** Starts a backup through the admin route, runs it and returns its id and archive bytes. */
export async function completedBackup(): Promise<{ id: string; archive: Uint8Array }> {
  const started = await call("POST", "/api/admin/backups", { headers: ADMIN });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.backup).toMatchObject({ status: "running" });
  const id = started.body.backup.id as string;
  await drainJobs();
  const done = await call("GET", `/api/admin/backups/${id}`, { headers: ADMIN });
  expect(done.body.backup, JSON.stringify(done.body)).toMatchObject({ id, status: "completed", error: null });
  const archive = await call("GET", `/api/admin/backups/${id}/archive`, { headers: ADMIN });
  expect(archive.status).toBe(200);
  expect(archive.headers.get("content-type")).toBe("application/x-tar");
  const bytes = await backupArchive(id);
  expect(bytes.length).toBe(done.body.backup.bytes);
  return { id, archive: bytes };
}

/** A backup's archive bytes (call() reads bodies as text). */
export async function backupArchive(id: string): Promise<Uint8Array> {
  const { GET } = await import("@/app/api/admin/backups/[id]/archive/route");
  const res = await GET(
    new Request(new URL(`/api/admin/backups/${id}/archive`, "http://svc.test"), { headers: ADMIN }),
  );
  return new Uint8Array(await res.arrayBuffer());
}

export async function membersOf(archive: Uint8Array): Promise<Map<string, Buffer>> {
  const members = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on("entry", (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      members.set(header.name, Buffer.concat(chunks));
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => extract.on("finish", () => resolve()).on("error", reject));
  extract.end(Buffer.from(archive));
  await done;
  return members;
}

/** An archive of the given members, in order. */
export async function packArchive(members: Iterable<[string, Buffer]>): Promise<Uint8Array> {
  const pack = tar.pack();
  for (const [name, content] of members) pack.entry({ name }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Points this process at a second, empty instance (its own database and DATA_DIR). */
export async function switchToFreshInstance(): Promise<void> {
  const opened = await openTestDatabase();
  useDatabase(opened.database);
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "svc-restored-"));
  await forgetGrants();
  await startTestExecutor();
}

/** Uploads an archive to POST /api/admin/restore and runs the restore; `restore` is its final status. */
export async function restoreArchive(archive: Uint8Array) {
  const res = await call("POST", "/api/admin/restore", {
    headers: { ...ADMIN, "content-type": "application/x-tar" },
    body: archive,
  });
  if (res.status !== 202) return { accepted: res, restore: undefined };
  await drainJobs();
  const status = await call("GET", `/api/admin/restore/${res.body.restore.id}`, { headers: ADMIN });
  return { accepted: res, restore: status.body.restore };
}
