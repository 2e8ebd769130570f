/**
 * What an area acts on among a project's events, as an SQL condition on the project (`project` is
 * the SQL expression of its uuid): the webhooks area's active webhooks, the changes area's promoted
 * changes. Each registered interest becomes a boolean field of the job events (`domainJobEventsSql`), so
 * a function whose trigger tests that field starts no run for an event nobody acts on; the areas'
 * conditions are read together, in one statement, without this area knowing their tables.
 */
export type ProjectInterest = (project: string) => string;

const FIELD = /^[a-zA-Z]+$/;

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcProjectInterests?: Map<string, ProjectInterest> };
const interests = () => (holder.__svcProjectInterests ??= new Map<string, ProjectInterest>());

/** Registers the job events' field `field` (at start-up: server/runtime/subscribers.ts). */
export function onProjectInterest(field: string, condition: ProjectInterest): void {
  if (!FIELD.test(field)) throw new Error(`An interest's field is a plain name (${field})`);
  interests().set(field, condition);
}

/**
 * Every registered interest of the project `project` (an SQL expression of its uuid, read in the
 * statement's snapshot, so a webhook added by a transaction that committed first is seen), as an
 * SQL jsonb object of booleans. No project interests no one. A field nobody registered is absent,
 * and a trigger's `!= false` then still runs.
 */
export function interestsSql(project: string): string {
  const fields = [...interests()].map(
    ([field, condition]) => `'${field}', (${project} IS NOT NULL AND (${condition(project)}))`,
  );
  return fields.length ? `jsonb_build_object(${fields.join(", ")})` : `'{}'::jsonb`;
}
