import type { DbOrTx } from "@/server/db";

/** Of `projectIds`, the projects someone outside the service hears events of (their active webhooks). */
export type ProjectsWithListeners = (client: DbOrTx, projectIds: string[]) => Promise<Set<string>>;

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcProjectsWithListeners?: ProjectsWithListeners };

/**
 * Lets the webhooks area say which projects have listeners without this area reading its table.
 * Registered at start-up (server/runtime/subscribers.ts).
 */
export function onProjectsWithListeners(find: ProjectsWithListeners): void {
  holder.__svcProjectsWithListeners = find;
}

/**
 * Whether each project's events are heard, read in `client` (the recording transaction, so a webhook
 * added by a transaction that committed first is seen). Every project is heard until the webhooks
 * area registered, and an event without a project never is.
 */
export async function projectsHeard(client: DbOrTx, projectIds: Array<string | null>): Promise<(projectId: string | null) => boolean> {
  const find = holder.__svcProjectsWithListeners;
  if (!find) return () => true;
  const ids = [...new Set(projectIds.filter((id): id is string => id !== null))];
  const heard = ids.length > 0 ? await find(client, ids) : new Set<string>();
  return (projectId) => projectId !== null && heard.has(projectId);
}
