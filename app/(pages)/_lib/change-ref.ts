import "server-only";
import { redirect } from "next/navigation";
import { refusalOf, type PageCaller } from "@/server/api";

/** The change a page's `[id]` segment names: its number in the project (`12`) or its id. */
export function changeOfRoute(api: PageCaller, project: { namespace: string; slug: string }, segment: string) {
  const id = decodeURIComponent(segment);
  return /^\d+$/.test(id)
    ? api.changes.getByNumber({ namespace: project.namespace, slug: project.slug, number: Number(id) })
    : api.changes.get({ id });
}

/**
 * Issues and changes share one index per project, so Markdown's `#12` links to the issues page;
 * there, a number that is no issue but a change redirects to the change (as Gitea's does).
 */
export async function orChangeOfNumber<T>(
  api: PageCaller,
  project: { namespace: string; slug: string; base: string },
  number: number,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (refusalOf(error).status !== 404) throw error;
    const change = await api.changes
      .getByNumber({ namespace: project.namespace, slug: project.slug, number })
      .catch(() => null);
    if (change) redirect(`${project.base}/changes/${number}`);
    throw error;
  }
}
