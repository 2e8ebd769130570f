import type { Change, Project } from "@/server/generated/prisma/client";
import type { Identity } from "@/server/auth";
import { database, db, type DbOrTx, type Tx } from "@/server/db";
import { workspaceNames } from "@/server/workspaces";
import { notFound } from "@/server/errors";
import { type ProjectRole, requireProject } from "@/server/projects";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/**
 * A change and its project for the caller: 404 for an unknown change or one whose project the
 * caller cannot read; 403 below `need`. `cachedRow`: a read (of the change, its diff, its stream,
 * the repository) may take the project row from the access cache (requireProject's option).
 */
export async function loadChange(
  identity: Identity,
  id: string,
  need: ProjectRole = "read",
  options: { cachedRow?: boolean } = {},
): Promise<{ change: Change; project: Project; role: ProjectRole }> {
  if (!isUuid(id)) throw notFound();
  const change = await (await db()).change.findUnique({ where: { id } });
  if (!change) throw notFound();
  const { project, role } = await requireProject(identity, { id: change.projectId }, need, options);
  return { change, project, role };
}

/** The project of a change (404 for an unknown id), through the driver: what a caller needs before it takes its project's lock. */
export async function changeProjectId(id: string): Promise<string> {
  if (!isUuid(id)) throw notFound();
  const [row] = await (
    await database()
  ).raw.query<{ projectId: string }>(`SELECT "projectId" FROM "Change" WHERE "id" = $1`, [id]);
  if (!row) throw notFound();
  return row.projectId;
}

/** What a read of a change's diff needs: which commits, in which project. */
export type ChangeCommits = Pick<Change, "id" | "projectId" | "baseSha" | "tipSha">;

/**
 * `loadChange` for the reads that need only the change's commits (its diff) or its identity (its
 * event stream): one indexed read through the driver (on PGlite the query engine costs more than
 * the read: ~7 ms of CPU against ~3 ms).
 */
export async function loadChangeCommits(
  identity: Identity,
  id: string,
): Promise<{ change: ChangeCommits; project: Project }> {
  if (!isUuid(id)) throw notFound();
  const [change] = await (
    await database()
  ).raw.query<ChangeCommits>(`SELECT "id", "projectId", "baseSha", "tipSha" FROM "Change" WHERE "id" = $1`, [id]);
  if (!change) throw notFound();
  const { project } = await requireProject(identity, { id: change.projectId }, "read", { cachedRow: true });
  return { change, project };
}

/**
 * Row locks on changes, in id order, until the transaction ends. Lock order: a transaction that
 * touches both a change and its queue entry locks the change first (queueing does: lock, then
 * insert the entry), or two of them wait on each other (PostgreSQL answers one with a deadlock).
 */
export async function lockChanges(tx: Tx, ids: string[]): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Change" WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`;
}

/** Re-reads a change holding its row lock until the transaction ends (status transitions serialize here). */
export async function lockChange(tx: Tx, id: string): Promise<Change> {
  await tx.$queryRaw`SELECT id FROM "Change" WHERE id = ${id}::uuid FOR UPDATE`;
  return tx.change.findUniqueOrThrow({ where: { id } });
}

export async function workspaceName(client: DbOrTx, workspaceId: string): Promise<string | null> {
  return (await workspaceNames([workspaceId], client)).get(workspaceId) ?? null;
}
