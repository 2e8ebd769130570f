import type { Change, Project } from "@/server/generated/prisma/client";
import { actorOf, type Identity, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import type { EventInput } from "@/server/events";
import { conflict, notFound } from "@/server/errors";
import { openProjectRepo } from "@/server/git";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import { assertNotDeleting, projectPath, requireProject } from "@/server/projects";
import { reviewState, reviewStateOf } from "@/server/changes/reviews/rules";
import { projectHead } from "../evaluation";
import { loadChange, lockChange } from "../load";
import type { MergeStrategy } from "../merge/commit";
import { asEvaluated, protectionReasons, type GateInput } from "../merge/gates";
import { addEntry, entryRow, positionOf, queuedEntries, queuedEvent, removeEntries, type EntryRow } from "./entries";
import { wakeQueue } from "./runner";

type ProjectRef = { namespace: string; slug: string } | { id: string };

/** Statuses a change cannot enter the queue from. */
const NOT_QUEUEABLE = new Set(["merged", "rejected", "needs_changes"]);

/**
 * Queues a change for landing (users with write access: what merge needs). 409
 * CHANGE_NOT_MERGEABLE when it is merged, rejected or needs changes. Answers its position; `added`
 * is false when it was already queued.
 */
export async function queueChange(identity: UserIdentity, id: string, input: { strategy: MergeStrategy }) {
  const { project } = await loadChange(identity, id, "write");
  assertNotDeleting(project);
  const added = await (
    await db()
  ).$transaction(async (tx) => {
    const change = await lockChange(tx, id);
    if (NOT_QUEUEABLE.has(change.status))
      throw conflict(`A ${change.status} change cannot be queued`, "CHANGE_NOT_MERGEABLE", {
        changeStatus: change.status,
      });
    return addEntry(tx, change, {
      strategy: input.strategy,
      enqueuedById: identity.userId,
      actor: actorOf(identity),
      auto: false,
    });
  });
  if (added) wakeQueue(project.id);
  return { added, page: changePage(project, id), answer: await queueAnswer(id) };
}

const changePage = (project: Project, id: string) => `/${projectPath(project)}/changes/${id}`;

async function queueAnswer(changeId: string) {
  const position = await positionOf(await db(), changeId);
  return {
    queued: true as const,
    changeId,
    position: position?.position ?? 0,
    state: position?.state ?? ("merging" as const),
  };
}

/** Takes a change out of the queue (`cancelled`); 404 when it is not queued. */
export async function unqueueChange(identity: UserIdentity, id: string) {
  const { project } = await loadChange(identity, id, "write");
  const removed = await (
    await db()
  ).$transaction((tx) => removeEntries(tx, project.id, [{ changeId: id, reason: "cancelled" }], actorOf(identity)));
  if (removed.length === 0) throw notFound("The change is not queued");
  return { page: changePage(project, id), answer: { queued: false as const, changeId: id } };
}

/** A project's queue in landing order, and how many changes it merged in the last hour. */
export async function projectQueue(identity: Identity, ref: ProjectRef, limit: number) {
  const { project } = await requireProject(identity, ref, "read");
  const prisma = await db();
  const [entries, mergedLastHour] = await Promise.all([
    queuedEntries(prisma, project.id, limit),
    prisma.change.count({
      where: { projectId: project.id, status: "merged", mergedAt: { gte: new Date(Date.now() - 3_600_000) } },
    }),
  ]);
  const users = await prisma.user.findMany({
    where: { id: { in: [...new Set(entries.map((e) => e.enqueuedById))] } },
    select: { id: true, username: true },
  });
  const names = new Map(users.map((u) => [u.id, u.username]));
  return {
    entries: entries.map((entry, index) => ({
      changeId: entry.changeId,
      position: index + 1,
      state: entry.state,
      enqueuedAt: entry.enqueuedAt.toISOString(),
      enqueuedBy: names.get(entry.enqueuedById) ?? null,
      strategy: entry.strategy as MergeStrategy,
    })),
    mergedLastHour,
  };
}

/**
 * Call after a change's state changed (created, re-evaluated, reviewed; a caller that just
 * evaluated it passes the head and policy it read). A queued change wakes its queue (an approval
 * may be what it waited for; a failed re-evaluation makes it leave). Otherwise, under
 * `merge.autoQueue: true`, a change that is accepted or approved, or still being evaluated, and
 * passes the approval gate (agents' changes included: `requiredApprovals` still applies) enters the
 * queue as if the project's owner queued it; anything else leaves it where it is. A change still
 * being evaluated is tested with its batch while its own runs go (one suite's time from open to
 * landed, not two) and lands only once they passed.
 */
export async function autoQueue(
  project: Project,
  change: Change,
  known?: { head: string; policy: PolicyResult },
): Promise<void> {
  if (await (await db()).queueEntry.findUnique({ where: { changeId: change.id }, select: { id: true } }))
    return wakeQueue(project.id);
  const enqueuedById = autoQueuer(project, change);
  if (!enqueuedById) return;
  const { repo, head } = known ? { repo: openProjectRepo(project.id), head: known.head } : projectHead(project);
  const policy = known?.policy ?? (await loadPolicy(repo, head));
  const prisma = await db();
  if (!autoQueueAdmits({ project, change, repo, head, policy, reviews: await reviewState(prisma, change) })) return;
  const added = await prisma.$transaction(async (tx) => {
    const current = await lockChange(tx, change.id);
    if (!AUTO_QUEUED.has(current.status)) return false;
    return addEntry(tx, current, autoEntry(enqueuedById));
  });
  if (added) wakeQueue(project.id);
}

/** The statuses `merge.autoQueue` queues from (`open`: its evaluation still runs). */
const AUTO_QUEUED = new Set<Change["status"]>(["accepted", "approved", "open"]);

/** Who queues a change under `merge.autoQueue` (the project's owner), or null. */
const autoQueuer = (project: Project, change: Change): string | null =>
  AUTO_QUEUED.has(change.status) ? (project.ownerUserId ?? change.authorId) : null;

const autoEntry = (enqueuedById: string) => ({ strategy: "merge" as const, enqueuedById, actor: "system", auto: true });

function autoQueueAdmits(
  input: Pick<GateInput, "project" | "change" | "repo" | "head" | "policy" | "reviews">,
): boolean {
  if (!input.policy.ok || !input.policy.policy.merge.autoQueue) return false;
  const change = asEvaluated(input.change);
  return protectionReasons({ ...input, change, workspace: null, evaluationPassed: true, force: false }).length === 0;
}

/**
 * `autoQueue` for a change being created (it has no reviews and no entry yet, and nobody else can
 * have moved it): the entry its creating statement inserts and the `change.queued` event it records
 * with the change's own, or null. Wake the queue after the commit.
 */
export function autoQueueEntry(
  project: Project,
  change: Change,
  known: { head: string; policy: PolicyResult },
): { entry: EntryRow; event: EventInput } | null {
  const enqueuedById = autoQueuer(project, change);
  if (!enqueuedById) return null;
  if (
    !autoQueueAdmits({
      project,
      change,
      repo: openProjectRepo(project.id),
      head: known.head,
      policy: known.policy,
      reviews: reviewStateOf(change, []),
    })
  )
    return null;
  const input = autoEntry(enqueuedById);
  return { entry: entryRow(change, input), event: queuedEvent(change, input) };
}
