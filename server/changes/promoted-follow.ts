import { db } from "@/server/db";
import { isRefusal } from "@/server/errors";
import { findDomainEvent } from "@/server/events";
import { findWorkspace } from "@/server/workspaces";
import { evaluateWorkspace, recordReevaluation, workspaceTip } from "./evaluation";
import { pushTip, type HostPullRequest } from "./host-pr";
import { lockChange, workspaceName } from "./load";
import { log } from "@/server/log";

/** The events area's interest `promotedChanges`: the project has a promoted change (a push to it starts no follow run otherwise). */
export const projectHasPromotedChange = (project: string) =>
  `EXISTS (SELECT 1 FROM "Change" WHERE "projectId" = ${project} AND status = 'promoted')`;

/**
 * The promoted changes whose workspace a `push` event moved (a commit through the route or a git
 * push to the workspace); none for pushes to the project's own branches.
 */
export async function promotedChangesMovedBy(eventId: string): Promise<string[]> {
  const event = await findDomainEvent(eventId);
  const workspace = event?.data.workspace;
  if (!event?.projectId || event.kind !== "push" || typeof workspace !== "string") return [];
  const found = await findWorkspace(event.projectId, workspace);
  if (!found) return [];
  const rows = await (
    await db()
  ).change.findMany({ where: { workspaceId: found.id, status: "promoted" }, select: { id: true } });
  return rows.map((row) => row.id);
}

export type PromotedReevaluation = "reevaluated" | "current" | "skipped";

/**
 * Re-evaluates a promoted change whose workspace moved: the route refuses promoted changes, so this
 * runs in the background and the change stays `promoted`. `current` when the workspace tip is the
 * evaluated one already (a re-run after the round was stored); `skipped` when the change is no
 * longer promoted or the workspace cannot be evaluated (no changes left, submodules...).
 */
export async function reevaluatePromotedChange(changeId: string): Promise<PromotedReevaluation> {
  const prisma = await db();
  const change = await prisma.change.findUnique({ where: { id: changeId }, include: { project: true } });
  if (change?.status !== "promoted") return "skipped";
  const name = await workspaceName(prisma, change.workspaceId);
  if (!name) return "skipped";
  if (workspaceTip(change.project, name) === change.tipSha) return "current";
  let prepared: Awaited<ReturnType<typeof evaluateWorkspace>>;
  try {
    prepared = await evaluateWorkspace(change.project, name, change.id, { inline: true });
  } catch (error) {
    if (!isRefusal(error)) throw error;
    log().warn({ changeId, err: (error as Error).message }, "changes: a promoted change was not re-evaluated");
    return "skipped";
  }
  return prisma.$transaction(async (tx) => {
    const current = await lockChange(tx, changeId);
    if (current.status !== "promoted") return "skipped";
    await recordReevaluation(tx, current, prepared, { statusAfter: async () => "promoted", actor: "system" });
    return "reevaluated";
  });
}

/**
 * Pushes a promoted change's evaluated tip to `svc/<changeId>` on the source unless it is there
 * already, and records it; provider failures throw (the job retries). Answers the pushed tip or null.
 */
export async function pushPromotedTip(changeId: string): Promise<{ pushed: string | null }> {
  const prisma = await db();
  const change = await prisma.change.findUnique({ where: { id: changeId } });
  const host = change?.hostPullRequest as unknown as HostPullRequest | null;
  if (change?.status !== "promoted" || !host || host.pushedSha === change.tipSha) return { pushed: null };
  await pushTip(change.projectId, host, change);
  // Conditional on the tip: a round that moved it meanwhile is pushed by its own run.
  await prisma.change.updateMany({
    where: { id: changeId, tipSha: change.tipSha },
    data: { hostPullRequest: { ...host, pushedSha: change.tipSha } },
  });
  return { pushed: change.tipSha };
}
