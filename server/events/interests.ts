import type { DbOrTx } from "@/server/db";

/**
 * What an area acts on among a project's events, as an SQL condition on the project (`project` is
 * the SQL expression of its uuid): the webhooks area's active webhooks, the changes area's promoted
 * changes. Each registered interest becomes a boolean field of the job events (`domainJobEvent`), so
 * a function whose trigger tests that field starts no run for an event nobody acts on; the areas'
 * conditions are read together, in one statement, without this area knowing their tables.
 */
export type ProjectInterest = (project: string) => string;

const FIELD = /^[a-zA-Z]+$/;

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcProjectInterests?: Map<string, ProjectInterest> };
const interests = () => (holder.__svcProjectInterests ??= new Map());

/** Registers the job events' field `field` (at start-up: server/runtime/subscribers.ts). */
export function onProjectInterest(field: string, condition: ProjectInterest): void {
  if (!FIELD.test(field)) throw new Error(`An interest's field is a plain name (${field})`);
  interests().set(field, condition);
}

export type InterestsOf = (projectId: string | null) => Record<string, boolean>;

/**
 * Every registered interest of each project, read in `client` (the recording transaction, so a
 * webhook added by a transaction that committed first is seen). An event without a project
 * interests no one. A field nobody registered is absent, and a trigger's `!= false` then still runs.
 */
export async function projectInterests(client: DbOrTx, projectIds: Array<string | null>): Promise<InterestsOf> {
  const registered = [...interests()];
  const none = Object.fromEntries(registered.map(([field]) => [field, false]));
  const ids = [...new Set(projectIds.filter((id): id is string => id !== null))];
  if (registered.length === 0 || ids.length === 0) return () => none;
  const columns = registered.map(([field, condition]) => `(${condition("p.id")}) AS "${field}"`).join(", ");
  const rows = await client.$queryRawUnsafe<Array<Record<string, boolean> & { projectId: string }>>(
    `SELECT p.id::text AS "projectId", ${columns} FROM unnest($1::uuid[]) AS p(id)`,
    ids,
  );
  const byProject = new Map(rows.map(({ projectId, ...fields }) => [projectId, fields]));
  return (projectId) => (projectId === null ? none : (byProject.get(projectId) ?? none));
}
