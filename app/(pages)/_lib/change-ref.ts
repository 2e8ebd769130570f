import "server-only";
import type { PageCaller } from "@/server/api";

/** The change a page's `[id]` segment names: its number in the project (`12`) or its id. */
export function changeOfRoute(api: PageCaller, project: { namespace: string; slug: string }, segment: string) {
  const id = decodeURIComponent(segment);
  return /^\d+$/.test(id)
    ? api.changes.getByNumber({ namespace: project.namespace, slug: project.slug, number: Number(id) })
    : api.changes.get({ id });
}
