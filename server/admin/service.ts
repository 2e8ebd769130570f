import { cacheReports } from "@/server/caches";
import { database, db } from "@/server/db";
import { createUser, publicUser, type Identity } from "@/server/auth";
import { listAudit, writeAudit } from "@/server/audit";
import { findProject } from "@/server/projects";

/** Creates a user (an instance administrator with `isAdmin`), audited `admin.user.created`. */
export async function createUserAsAdmin(identity: Identity, input: { username: string; isAdmin?: boolean }) {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const { user, token } = await createUser(input.username, tx, { isAdmin: input.isAdmin });
    await writeAudit(tx, {
      action: "admin.user.created",
      identity,
      target: `user:${user.id}`,
      data: { username: user.username, isAdmin: user.isAdmin },
    });
    return { user: publicUser(user), token };
  });
}

/** The id of the project at `@ns/slug` (or a project id), or null when there is none. */
async function projectIdOf(path: string): Promise<string | null> {
  const match = /^@([^/]+)\/([^/]+)$/.exec(path);
  const project = await findProject(match ? { namespace: match[1], slug: match[2] } : { id: path });
  return project?.id ?? null;
}

/** The audit list with the contract's filters; an unknown project matches no entry. */
export async function auditEntries(filter: {
  action?: string;
  actor?: string;
  project?: string;
  before?: string;
  limit: number;
}) {
  let projectId: string | undefined;
  if (filter.project !== undefined) {
    const id = await projectIdOf(filter.project);
    if (!id) return [];
    projectId = id;
  }
  return listAudit({
    action: filter.action,
    actor: filter.actor,
    projectId,
    before: filter.before,
    limit: filter.limit,
  });
}

/** The process's memory (the embedded database's thread apart, when there is one) and every registered process-wide cache (server/caches.ts). */
export async function cachesReport() {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const embedded = await (await database()).memory?.();
  return {
    memory: {
      rssBytes: rss,
      heapUsedBytes: heapUsed,
      heapTotalBytes: heapTotal,
      externalBytes: external,
      arrayBuffersBytes: arrayBuffers,
      databaseWasmBytes: embedded?.wasmBytes ?? null,
      databaseHeapUsedBytes: embedded?.heapUsedBytes ?? null,
    },
    caches: cacheReports(),
  };
}
