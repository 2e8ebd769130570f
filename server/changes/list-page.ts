import { setPageHeaders, type Context } from "@/server/trpc";
import { listChanges } from "./service";
import type { ChangeStatus } from "./views";

/** A page of a project's changes for a list route, with its X-Total-Count and Link headers. */
export async function pageOfChanges(
  ctx: Context,
  project: { namespace: string; slug: string } | { id: string },
  filter: { status?: ChangeStatus; limit: number; offset: number },
) {
  const { total, ...page } = await listChanges(ctx.identity, project, filter);
  setPageHeaders(ctx, { total, limit: filter.limit, offset: filter.offset });
  return page;
}
