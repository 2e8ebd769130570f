import type { Issue, IssueComment } from "@/server/generated/prisma/client";
import { database, db, isoTimestampSql, type Db, type DbOrTx, type Tx } from "@/server/db";
import { actingIdentity, actorOf, type Identity } from "@/server/auth";
import { allocateProjectNumber, assertNotDeleting, requireProject } from "@/server/projects";
import { eventsAbout, publishAfterCommit, recordEvent } from "@/server/events";
import { invalid, notFound } from "@/server/errors";
import type { CommentView, IssueView, TimelineEntry } from "./schemas";
import { log } from "@/server/log";

export interface ProjectRef {
  namespace: string;
  slug: string;
}

/** Only the two name fields: `requireProject` reads any `id` key as a project id. */
const projectRef = (ref: ProjectRef): ProjectRef => ({ namespace: ref.namespace, slug: ref.slug });

const authorOf = (row: { authorId: string | null; agentId: string | null }) =>
  row.agentId ? `agent:${row.agentId}` : row.authorId ? `user:${row.authorId}` : null;

const LABELS_LISTED = 200;

export function issueView(issue: Issue): IssueView {
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    status: issue.status,
    labels: issue.labels,
    assignee: issue.assigneeId,
    linkedChangeId: issue.linkedChangeId,
    author: authorOf(issue),
    closedAt: issue.closedAt?.toISOString() ?? null,
    closedBy: issue.closedBy,
    createdAt: issue.createdAt.toISOString(),
    updatedAt: issue.updatedAt.toISOString(),
  };
}

function commentView(comment: IssueComment, issueNumber: number): CommentView {
  return {
    id: comment.id,
    issueNumber,
    body: comment.body,
    author: authorOf(comment),
    createdAt: comment.createdAt.toISOString(),
  };
}

/** Author columns of a row written by `identity` (an agent's row names the agent and its owner). */
function authorColumns(caller: Identity) {
  const identity = actingIdentity(caller);
  if (identity.kind === "user") return { authorId: identity.userId, agentId: null };
  if (identity.kind === "agent") return { authorId: identity.ownerId, agentId: identity.agentId };
  return { authorId: null, agentId: null };
}

async function assertChangeOfProject(tx: DbOrTx, projectId: string, changeId: string): Promise<void> {
  const change = await tx.change.findFirst({ where: { id: changeId, projectId }, select: { id: true } });
  if (!change) throw invalid("linkedChangeId must reference a change of this project", "VALIDATION_ERROR");
}

/** Locks one issue row for the rest of the transaction, so concurrent edits apply one after another. */
async function lockIssue(tx: Tx, projectId: string, number: number): Promise<Issue> {
  const locked = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "Issue" WHERE "projectId" = ${projectId}::uuid AND "number" = ${number} FOR UPDATE`;
  if (locked.length === 0) throw notFound("Issue not found");
  return tx.issue.findUniqueOrThrow({ where: { id: locked[0].id } });
}

async function findIssue(client: DbOrTx, projectId: string, number: number): Promise<Issue> {
  const issue = await client.issue.findUnique({ where: { projectId_number: { projectId, number } } });
  if (!issue) throw notFound("Issue not found");
  return issue;
}

/** The columns and event of a status transition; none when the status does not change. */
function transition(issue: Issue, to: "open" | "closed", actor: string) {
  if (issue.status === to) return null;
  return to === "closed"
    ? { data: { status: "closed" as const, closedAt: new Date(), closedBy: actor }, kind: "issue.closed" as const }
    : { data: { status: "open" as const, closedAt: null, closedBy: null }, kind: "issue.reopened" as const };
}

const eventData = (issue: Issue) => ({ issueId: issue.id, number: issue.number, title: issue.title });

export async function createIssue(
  identity: Identity,
  ref: ProjectRef,
  input: { title: string; body?: string; linkedChangeId?: string },
): Promise<IssueView> {
  const { project } = await requireProject(identity, projectRef(ref), "read");
  assertNotDeleting(project);
  const prisma = await db();
  const issue = await prisma.$transaction(async (tx) => {
    if (input.linkedChangeId) await assertChangeOfProject(tx, project.id, input.linkedChangeId);
    const number = await allocateProjectNumber(tx, project.id, "issues");
    const created = await tx.issue.create({
      data: {
        projectId: project.id,
        number,
        title: input.title,
        body: input.body ?? "",
        linkedChangeId: input.linkedChangeId ?? null,
        ...authorColumns(identity),
      },
    });
    await recordEvent(tx, {
      projectId: project.id,
      kind: "issue.opened",
      actor: actorOf(identity),
      data: eventData(created),
    });
    if (created.linkedChangeId)
      await recordEvent(tx, {
        projectId: project.id,
        kind: "issue.linked",
        actor: actorOf(identity),
        data: { ...eventData(created), changeId: created.linkedChangeId, previous: null },
      });
    return created;
  });
  return issueView(issue);
}

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export async function listIssues(
  identity: Identity,
  ref: ProjectRef,
  filter: {
    status?: "open" | "closed";
    label?: string;
    assignee?: string;
    author?: string;
    q?: string;
    limit: number;
    offset: number;
  },
): Promise<{ issues: IssueView[]; total: number }> {
  const { project } = await requireProject(identity, projectRef(ref), "read");
  const prisma = await db();
  const q = filter.q ? escapeLike(filter.q) : undefined;
  const where = {
    projectId: project.id,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.label !== undefined ? { labels: { has: filter.label } } : {}),
    ...(filter.assignee ? { assigneeId: filter.assignee } : {}),
    ...(filter.author ? { author: { username: filter.author } } : {}),
    ...(q
      ? {
          OR: [
            { title: { contains: q, mode: "insensitive" as const } },
            { body: { contains: q, mode: "insensitive" as const } },
          ],
        }
      : {}),
  };
  const [issues, total] = await Promise.all([
    prisma.issue.findMany({
      where,
      orderBy: { number: "desc" },
      take: filter.limit,
      skip: filter.offset,
      include: { _count: { select: { comments: true } } },
    }),
    prisma.issue.count({ where }),
  ]);
  return { issues: issues.map((issue) => ({ ...issueView(issue), comments: issue._count.comments })), total };
}

/** The labels the project's issues carry, by name (the issue page's label picker; at most LABELS_LISTED). */
export async function projectLabels(identity: Identity, ref: ProjectRef): Promise<string[]> {
  const { project } = await requireProject(identity, projectRef(ref), "read");
  const prisma = await db();
  const rows = await prisma.$queryRaw<{ label: string }[]>`
    SELECT DISTINCT unnest("labels") AS "label" FROM "Issue" WHERE "projectId" = ${project.id}::uuid
    ORDER BY 1 LIMIT ${LABELS_LISTED}`;
  return rows.map((row) => row.label);
}

/**
 * What an issue's answer is a function of: `updatedAt` moves with every write through the client,
 * and the foreign keys also change by ON DELETE SET NULL, which leaves `updatedAt` alone.
 */
interface IssueVersion {
  id: string;
  updatedAt: string;
  assigneeId: string | null;
  linkedChangeId: string | null;
  authorId: string | null;
  agentId: string | null;
}

const versionParts = (version: IssueVersion) =>
  [version.id, version.updatedAt, version.assigneeId, version.linkedChangeId, version.authorId, version.agentId].map(
    (part) => part ?? "",
  );

/** One issue; `setVersion` gets its version (the parts `issueReadVersion` reads). */
export async function getIssue(
  identity: Identity,
  ref: ProjectRef,
  number: number,
  setVersion?: (...parts: string[]) => void,
): Promise<IssueView> {
  const { project } = await requireProject(identity, projectRef(ref), "read", { cachedRow: true });
  const issue = await findIssue(await db(), project.id, number);
  setVersion?.(...versionParts({ ...issue, updatedAt: issue.updatedAt.toISOString() }));
  return issueView(issue);
}

/**
 * An issue's version, for the REST pipeline's 304 before dispatch: one indexed row read through the
 * driver (the query engine costs three times the read itself).
 */
export async function issueReadVersion(identity: Identity, ref: ProjectRef, number: number): Promise<string[]> {
  const { project } = await requireProject(identity, projectRef(ref), "read", { cachedRow: true });
  const rows = await (
    await database()
  ).raw.query<IssueVersion>(
    `SELECT "id", ${isoTimestampSql("updatedAt")} AS "updatedAt", "assigneeId", "linkedChangeId", "authorId", "agentId"
     FROM "Issue" WHERE "projectId" = $1 AND "number" = $2`,
    [project.id, number],
  );
  if (rows.length === 0) throw notFound("Issue not found");
  return versionParts(rows[0]);
}

export interface IssuePatch {
  title?: string;
  body?: string;
  status?: "open" | "closed";
  labels?: string[];
  assignee?: string | null;
  linkedChangeId?: string | null;
}

/**
 * Runs `edit` on one issue locked for the transaction, for a caller with project write access
 * (the routers also require a user identity), then publishes the events it recorded.
 */
async function editIssue(
  identity: Identity,
  ref: ProjectRef,
  number: number,
  edit: (tx: Tx, current: Issue, context: { projectId: string; actor: string }) => Promise<Issue>,
): Promise<IssueView> {
  const { project } = await requireProject(identity, projectRef(ref), "write");
  assertNotDeleting(project);
  const prisma = await db();
  const context = { projectId: project.id, actor: actorOf(identity) };
  const issue = await prisma.$transaction(async (tx) => edit(tx, await lockIssue(tx, project.id, number), context));
  return issueView(issue);
}

/** Writes only the fields present; a status change records its event. */
export function patchIssue(identity: Identity, ref: ProjectRef, number: number, patch: IssuePatch): Promise<IssueView> {
  return editIssue(identity, ref, number, async (tx, current, { projectId, actor }) => {
    if (patch.assignee) {
      const user = await tx.user.findUnique({ where: { id: patch.assignee }, select: { isTombstone: true } });
      if (!user || user.isTombstone) throw invalid("assignee must be the id of an existing user", "VALIDATION_ERROR");
    }
    if (patch.linkedChangeId) await assertChangeOfProject(tx, projectId, patch.linkedChangeId);
    const step = patch.status ? transition(current, patch.status, actor) : null;
    const updated = await tx.issue.update({
      where: { id: current.id },
      data: {
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.body !== undefined ? { body: patch.body } : {}),
        ...(patch.labels !== undefined ? { labels: patch.labels } : {}),
        ...(patch.assignee !== undefined ? { assigneeId: patch.assignee } : {}),
        ...(patch.linkedChangeId !== undefined ? { linkedChangeId: patch.linkedChangeId } : {}),
        ...(step?.data ?? {}),
      },
    });
    if (step) await recordEvent(tx, { projectId, kind: step.kind, actor, data: eventData(updated) });
    for (const edit of timelineEdits(current, updated))
      await recordEvent(tx, { projectId, kind: edit.kind, actor, data: { ...eventData(updated), ...edit.data } });
    return updated;
  });
}

/** What a patch changed that an issue's timeline shows: labels added or removed, the assignee, the linked change. */
function timelineEdits(before: Issue, after: Issue) {
  const edits: Array<{ kind: "issue.labeled" | "issue.assigned" | "issue.linked"; data: Record<string, unknown> }> = [];
  const added = after.labels.filter((label) => !before.labels.includes(label));
  const removed = before.labels.filter((label) => !after.labels.includes(label));
  if (added.length > 0 || removed.length > 0) edits.push({ kind: "issue.labeled", data: { added, removed } });
  if (before.assigneeId !== after.assigneeId)
    edits.push({ kind: "issue.assigned", data: { assignee: after.assigneeId, previous: before.assigneeId } });
  if (before.linkedChangeId !== after.linkedChangeId)
    edits.push({ kind: "issue.linked", data: { changeId: after.linkedChangeId, previous: before.linkedChangeId } });
  return edits;
}

const TIMELINE_KINDS = [
  "issue.opened",
  "issue.closed",
  "issue.reopened",
  "issue.labeled",
  "issue.assigned",
  "issue.linked",
] as const;

/**
 * An issue's timeline from its domain events, oldest first: opened, closed (by whom; by a merged
 * change), reopened, labels added and removed, assignee and linked change set or cleared.
 */
export async function issueTimeline(identity: Identity, ref: ProjectRef, number: number): Promise<TimelineEntry[]> {
  const { project } = await requireProject(identity, projectRef(ref), "read", { cachedRow: true });
  const issue = await findIssue(await db(), project.id, number);
  const events = await eventsAbout(project.id, "issueId", issue.id, TIMELINE_KINDS);
  return events.map((event) => {
    const data = event.data;
    const names = (value: unknown) =>
      Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
    const id = (value: unknown) => (typeof value === "string" ? value : null);
    return {
      id: event.id,
      kind: event.kind as TimelineEntry["kind"],
      actor: event.actor,
      occurredAt: event.occurredAt,
      added: names(data.added),
      removed: names(data.removed),
      assignee: id(data.assignee),
      changeId: id(data.changeId),
    };
  });
}

/** The close-toggle: closes an open issue, reopens a closed one. */
export function toggleIssue(identity: Identity, ref: ProjectRef, number: number): Promise<IssueView> {
  return editIssue(identity, ref, number, async (tx, current, { projectId, actor }) => {
    const step = transition(current, current.status === "open" ? "closed" : "open", actor)!;
    const updated = await tx.issue.update({ where: { id: current.id }, data: step.data });
    await recordEvent(tx, { projectId, kind: step.kind, actor, data: eventData(updated) });
    return updated;
  });
}

/**
 * Closes the open issues linked to a merged change, attributed to "system", each with its
 * `issue.closed` event. Runs inside the caller's transaction (the merge); each issue is closed
 * under its own savepoint, so a failing issue is logged and skipped and never fails the merge.
 * Returns the numbers of the issues it closed. Given a transaction, the events go out after the
 * caller's commit (the request pipeline publishes them); given the plain client, it commits and
 * publishes itself.
 */
export async function closeIssuesLinkedToChange(
  client: DbOrTx,
  target: { projectId: string; changeId: string },
): Promise<number[]> {
  // A transaction client lacks $connect (Prisma's interactive-transaction deny list).
  const root = client as Partial<Db>;
  if (typeof root.$connect === "function") {
    const closed = await root.$transaction!((tx) => closeIssuesLinkedToChange(tx, target));
    await publishAfterCommit();
    return closed;
  }
  const tx = client as Tx;
  const open = await tx.issue.findMany({
    where: { projectId: target.projectId, linkedChangeId: target.changeId, status: "open" },
    select: { number: true },
    orderBy: { number: "asc" },
  });
  const closed: number[] = [];
  for (const { number } of open) {
    await tx.$executeRawUnsafe("SAVEPOINT close_linked_issue");
    try {
      const current = await lockIssue(tx, target.projectId, number);
      const step = transition(current, "closed", "system");
      if (step) {
        const updated = await tx.issue.update({ where: { id: current.id }, data: step.data });
        await recordEvent(tx, {
          projectId: target.projectId,
          kind: step.kind,
          actor: "system",
          data: { ...eventData(updated), changeId: target.changeId },
        });
        closed.push(number);
      }
      await tx.$executeRawUnsafe("RELEASE SAVEPOINT close_linked_issue");
    } catch (error) {
      await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT close_linked_issue");
      log().error(
        { issue: number, changeId: target.changeId, err: error },
        "issues: could not close an issue linked to a merged change",
      );
    }
  }
  return closed;
}

export async function createComment(
  identity: Identity,
  ref: ProjectRef,
  number: number,
  body: string,
): Promise<CommentView> {
  const { project } = await requireProject(identity, projectRef(ref), "read");
  assertNotDeleting(project);
  const prisma = await db();
  const comment = await prisma.$transaction(async (tx) => {
    const issue = await findIssue(tx, project.id, number);
    const comment = await tx.issueComment.create({ data: { issueId: issue.id, body, ...authorColumns(identity) } });
    await recordEvent(tx, {
      projectId: project.id,
      kind: "issue.commented",
      actor: actorOf(identity),
      data: { ...eventData(issue), commentId: comment.id },
    });
    return commentView(comment, issue.number);
  });
  return comment;
}

export async function listComments(
  identity: Identity,
  ref: ProjectRef,
  number: number,
  page: { limit: number; offset: number },
): Promise<{ comments: CommentView[]; total: number }> {
  const { project } = await requireProject(identity, projectRef(ref), "read");
  const prisma = await db();
  const issue = await findIssue(prisma, project.id, number);
  const [comments, total] = await Promise.all([
    prisma.issueComment.findMany({
      where: { issueId: issue.id },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: page.limit,
      skip: page.offset,
    }),
    prisma.issueComment.count({ where: { issueId: issue.id } }),
  ]);
  return { comments: comments.map((comment) => commentView(comment, issue.number)), total };
}
