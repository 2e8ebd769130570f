import type { Change } from "@/server/generated/prisma/client";
import { actingAgentId, actingIdentity, actingUserId, actorOf, type Identity, type UserIdentity } from "@/server/auth";
import { db, insertRowsSql } from "@/server/db";
import { revokeKeysOfChanges, workspaceAlongside } from "@/server/workspaces";
import { recordEvent, recordEventsAlongside } from "@/server/events";
import { invalid, notFound } from "@/server/errors";
import { allocateProjectNumber, assertNotDeleting, assertNotImporting, requireProject } from "@/server/projects";
import { reviewState, statusAfterEvaluation } from "@/server/changes/reviews/rules";
import {
  evaluateWorkspace,
  evaluationRows,
  insertEvalRunsSql,
  insertEvaluationsSql,
  newChangeId,
  recordReevaluation,
  type PreparedEvaluation,
} from "./evaluation";
import { wakeRunners } from "./runs/pool";
import { waitForVerdict } from "./runs/settle";
import { cancelUnfinishedRuns } from "./runs/store";
import { isUuid, loadChange, lockChange, workspaceName } from "./load";
import { insertEntriesSql, removeEntries } from "./queue/entries";
import { autoQueue, autoQueueEntry } from "./queue/service";
import { readChangeState, type ChangeState } from "./read";
import { wakeQueue } from "./queue/runner";
import { changeView, costsOf, evalRunView, evalView, namesFor, type ChangeNames, type ChangeStatus } from "./views";

type ProjectRef = { namespace: string; slug: string } | { id: string };

/** The names a new change's view shows, all known to the request that creates it. */
function namesOfNew(identity: Identity, change: Change, workspace: string): ChangeNames {
  const acting = actingIdentity(identity);
  const username = acting.kind === "user" ? acting.username : acting.kind === "agent" ? acting.ownerUsername : null;
  return {
    workspaces: new Map([[change.workspaceId, workspace]]),
    users: new Map(change.authorId && username ? [[change.authorId, username]] : []),
  };
}

// A new change with its first evaluation round and, under `merge.autoQueue`, its queue entry (each
// row a JSON parameter), written in the statement that records its events.
const NEW_CHANGE_CTES = `
change AS (${insertRowsSql(
  "Change",
  {
    id: "uuid",
    projectId: "uuid",
    workspaceId: "uuid",
    number: "int4",
    status: '"ChangeStatus"',
    authorId: "uuid",
    agentId: "uuid",
    keyId: "uuid",
    title: "text",
    baseSha: "text",
    tipSha: "text",
    createdAt: "timestamp(3)",
    updatedAt: "timestamp(3)",
  },
  "",
  "$1",
)}),
evaluation AS (${insertEvaluationsSql("$2")}),
runs AS (${insertEvalRunsSql("$3")}),
entry AS (${insertEntriesSql("$4")})`;

/**
 * Creates a change from a workspace: diffed against the default branch, evaluated synchronously,
 * recorded `accepted` or `needs_changes` with one eval run per evaluator. Writers (users and agents).
 */
export async function createChange(
  identity: Identity,
  ref: ProjectRef,
  workspace: string,
  options: { wait?: number } = {},
) {
  const { project, alongside: ws } = await requireProject(identity, ref, "write", {
    workspace,
    alongside: workspaceAlongside(workspace),
  });
  assertNotDeleting(project);
  assertNotImporting(project);
  if (!ws) throw notFound(`Unknown workspace ${workspace}`);
  const id = newChangeId();
  const prepared = await evaluateWorkspace(project, ws.name, id, { newChange: true });
  // Taken apart from the write below (one statement, no transaction): a failed write leaves a gap.
  const number = await allocateProjectNumber(await db(), project.id, "changes");
  const { verdict } = prepared.outcome;
  const status: ChangeStatus = verdict === null ? "open" : verdict === "passed" ? "accepted" : "needs_changes";
  const actor = actorOf(identity);
  const now = new Date();
  const change: Change = {
    id,
    projectId: project.id,
    workspaceId: ws.id,
    number,
    status,
    authorId: actingUserId(identity) ?? null,
    agentId: actingAgentId(identity),
    keyId: identity.kind === "workspace-key" ? identity.keyId : null,
    title: prepared.title || null,
    baseSha: prepared.head,
    tipSha: prepared.tip,
    mergedSha: null,
    mergedAt: null,
    mergedById: null,
    rejectedAt: null,
    revertedSha: null,
    revertedAt: null,
    revertedById: null,
    hostPullRequest: null,
    createdAt: now,
    updatedAt: now,
  };
  const { evaluation, runs } = evaluationRows(id, project.id, 1, prepared);
  // A new change is in no queue yet: only a policy that queues accepted changes puts it there, at once.
  const queued = autoQueueEntry(project, change, prepared);
  const rows = [[change], [evaluation], runs, queued ? [queued.entry] : []].map((list) => JSON.stringify(list));
  await recordEventsAlongside({ ctes: NEW_CHANGE_CTES, params: rows }, [
    {
      projectId: project.id,
      kind: "change.created",
      actor,
      data: {
        changeId: id,
        number,
        title: change.title,
        workspace: ws.name,
        status,
        baseSha: prepared.head,
        tipSha: prepared.tip,
      },
    },
    ...(verdict === null
      ? []
      : [{ projectId: project.id, kind: "change.evaluated" as const, actor, data: { changeId: id, verdict, status } }]),
    ...(queued ? [queued.event] : []),
  ]);
  if (queued) wakeQueue(project.id);
  const names = namesOfNew(identity, change, ws.name);
  if (verdict === null) {
    const state = await awaitRound(id, waitSecondsOf(prepared, options.wait));
    if (state) return { change: changeView(state.change, project, names), ...roundView(state) };
  }
  return { change: changeView(change, project, names), eval: evalView(evaluation), evalRuns: runs.map(evalRunView) };
}

/** How long a request waits for its background runs: `?wait`, else the policy's `evaluation.waitSeconds`. */
const waitSecondsOf = (prepared: PreparedEvaluation, wait: number | undefined) =>
  wait ?? (prepared.policy.ok ? prepared.policy.policy.evaluation.waitSeconds : 30);

/**
 * Starts the round's background runs and waits up to `seconds` for them; answers the change's state
 * after, or null when it did not wait (the caller's rows are that state: no run ends in between that
 * the answer could show, and a fleet's `?wait=0` opens save a read).
 */
async function awaitRound(changeId: string, seconds: number): Promise<ChangeState | null> {
  wakeRunners();
  if (seconds <= 0) return null;
  await waitForVerdict(changeId, seconds * 1000);
  return readChangeState(changeId);
}

/** The evaluation and the latest round's runs of a change state. */
const roundView = (state: ChangeState) => ({
  eval: evalView(state.evaluation!),
  evalRuns: state.runs.filter((run) => run.round === state.evaluation?.round).map(evalRunView),
});

/** One page of a project's changes, newest first, and how many match over every page. */
export async function listChanges(
  identity: Identity,
  ref: ProjectRef,
  filter: { status?: ChangeStatus; limit: number; offset: number },
) {
  const { project } = await requireProject(identity, ref, "read");
  const prisma = await db();
  const where = { projectId: project.id, ...(filter.status ? { status: filter.status } : {}) };
  const [changes, total] = await Promise.all([
    prisma.change.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: filter.limit,
      skip: filter.offset,
    }),
    prisma.change.count({ where }),
  ]);
  const names = await namesFor(changes);
  return {
    project: `@${project.namespace}/${project.slug}`,
    changes: changes.map((c) => changeView(c, project, names)),
    total,
  };
}

/** A change with the runs of its latest evaluation and per-kind costs over all its runs. */
export async function getChange(identity: Identity, id: string) {
  const state = isUuid(id) ? await readChangeState(id) : null;
  if (!state) throw notFound();
  return changeReadOf(identity, state);
}

/** A change addressed by its project and number (`@alice/demo` #12), answered as `getChange` does. */
export async function getChangeByNumber(identity: Identity, ref: ProjectRef, number: number) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  const found = await (
    await db()
  ).change.findUnique({ where: { projectId_number: { projectId: project.id, number } }, select: { id: true } });
  const state = found ? await readChangeState(found.id) : null;
  if (!state) throw notFound("Change not found");
  return changeReadOf(identity, state);
}

/** What a change read answers for a state read of the change (404 when the caller cannot read its project). */
export async function changeReadOf(identity: Identity, state: ChangeState) {
  const { change, evaluation, runs, workspace, author, queue } = state;
  const { project } = await requireProject(identity, { id: change.projectId }, "read", { cachedRow: true });
  const names: ChangeNames = {
    workspaces: new Map(workspace === null ? [] : [[change.workspaceId, workspace]]),
    users: new Map(author === null || change.authorId === null ? [] : [[change.authorId, author]]),
  };
  return {
    change: changeView(change, project, names),
    eval: evaluation ? evalView(evaluation) : null,
    evalRuns: runs.filter((run) => run.round === evaluation?.round).map(evalRunView),
    costs: costsOf(runs),
    queue,
  };
}

const NOT_EVALUABLE: readonly string[] = ["merged", "rejected", "promoted"];

/**
 * Re-evaluates a change against the current default branch and workspace tip under the current
 * policy. Approvals are dismissed when the evaluated base moves. Users with write access only.
 */
export async function reevaluateChange(identity: UserIdentity, id: string, options: { wait?: number } = {}) {
  const { change, project } = await loadChange(identity, id, "write");
  if (NOT_EVALUABLE.includes(change.status)) throw invalid(`A ${change.status} change cannot be re-evaluated`);
  const prisma = await db();
  const name = await workspaceName(prisma, change.workspaceId);
  if (!name) throw invalid("The change's workspace no longer exists");
  const prepared = await evaluateWorkspace(project, name, change.id);
  const { evaluation, runs } = await prisma.$transaction(async (tx) => {
    const current = await lockChange(tx, id);
    if (NOT_EVALUABLE.includes(current.status)) throw invalid(`A ${current.status} change cannot be re-evaluated`);
    const statusAfter = async (client: typeof tx, verdict: "passed" | "failed") =>
      statusAfterEvaluation(verdict, await reviewState(client, current));
    return recordReevaluation(tx, current, prepared, { statusAfter, actor: actorOf(identity) });
  });
  const written = { changeId: id, eval: evalView(evaluation), evalRuns: runs.map(evalRunView) };
  if (prepared.outcome.verdict === null) {
    const state = await awaitRound(id, waitSecondsOf(prepared, options.wait));
    return state ? { changeId: id, ...roundView(state) } : written;
  }
  await autoQueue(project, await prisma.change.findUniqueOrThrow({ where: { id } }));
  return written;
}

/** Rejects a change in any state but merged (users with write access). Rejecting twice is a no-op. */
export async function rejectChange(identity: UserIdentity, id: string) {
  const { project } = await loadChange(identity, id, "write");
  await (
    await db()
  ).$transaction(async (tx) => {
    const current = await lockChange(tx, id);
    if (current.status === "merged") throw invalid("A merged change cannot be rejected");
    if (current.status === "rejected") return;
    await tx.change.update({ where: { id }, data: { status: "rejected", rejectedAt: new Date() } });
    await cancelUnfinishedRuns(tx, id);
    await recordEvent(tx, {
      projectId: project.id,
      kind: "change.rejected",
      actor: actorOf(identity),
      data: { changeId: id, from: current.status },
    });
    await revokeKeysOfChanges(tx, [id], "rejected");
    await removeEntries(tx, project.id, [{ changeId: id, reason: "rejected" }], actorOf(identity));
  });
  return { rejected: true, changeId: id };
}
