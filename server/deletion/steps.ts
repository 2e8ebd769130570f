import type { Db } from "@/server/db";
import { forgetUserCredentials } from "@/server/auth";
import { handOverSoleOwnership } from "@/server/orgs";
import { removeProjectReposUnread } from "@/server/git";
import { removeProjectRunLogs } from "@/server/changes";
import { tombstoneUserId } from "./tombstone";

/**
 * The deletion cascades, one ordered list of steps per kind. Each step must be idempotent: a job
 * records the names of finished steps and a resumed job skips them, while an interrupted step runs
 * again from the start. Areas with per-project or per-user data add their step here.
 */
export interface DeletionStep {
  name: string;
  run(targetId: string, prisma: Db): Promise<void>;
}

const ids = <T extends { id: string }>(rows: T[]) => rows.map((row) => row.id);

export const projectSteps: DeletionStep[] = [
  // The foreign keys cascade from the project to everything it holds: workspaces, changes and
  // their evaluations, reviews, comments and conflicts, provenance, issues, events, webhooks.
  // Rows go first, so a backup's snapshot has the project wholly (its repositories are removed only
  // after that backup read them) or not at all.
  {
    name: "project",
    run: async (projectId, prisma) => void (await prisma.project.deleteMany({ where: { id: projectId } })),
  },
  { name: "repositories", run: (projectId) => removeProjectReposUnread(projectId) },
  { name: "evaluation logs", run: (projectId) => removeProjectRunLogs(projectId) },
];

/** Runs a project's whole cascade in place (a user's owned projects go this way). */
async function deleteProjectInline(projectId: string, prisma: Db): Promise<void> {
  await prisma.project.updateMany({ where: { id: projectId, deletingAt: null }, data: { deletingAt: new Date() } });
  for (const step of projectSteps) await step.run(projectId, prisma);
}

export const userSteps: DeletionStep[] = [
  {
    name: "credentials",
    run: async (userId, prisma) => {
      const now = new Date();
      await prisma.$transaction([
        prisma.apiToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } }),
        prisma.agent.updateMany({ where: { ownerId: userId, revokedAt: null }, data: { revokedAt: now } }),
        prisma.session.deleteMany({ where: { userId } }),
      ]);
      forgetUserCredentials(userId);
    },
  },
  {
    name: "owned-projects",
    run: async (userId, prisma) => {
      const owned = await prisma.project.findMany({ where: { ownerUserId: userId }, select: { id: true } });
      for (const { id } of owned) await deleteProjectInline(id, prisma);
    },
  },
  {
    name: "anonymize",
    run: async (userId, prisma) => {
      const tombstone = await tombstoneUserId(prisma);
      const agentIds = ids(await prisma.agent.findMany({ where: { ownerId: userId }, select: { id: true } }));
      const byAgent = { agentId: { in: agentIds } };
      await prisma.$transaction([
        prisma.change.updateMany({ where: { authorId: userId }, data: { authorId: tombstone } }),
        prisma.change.updateMany({ where: { mergedById: userId }, data: { mergedById: tombstone } }),
        prisma.change.updateMany({ where: byAgent, data: { agentId: null } }),
        prisma.changeComment.updateMany({ where: { authorId: userId }, data: { authorId: tombstone } }),
        prisma.changeComment.updateMany({ where: byAgent, data: { agentId: null, authorId: tombstone } }),
        prisma.changeComment.updateMany({ where: { resolvedById: userId }, data: { resolvedById: tombstone } }),
        prisma.review.updateMany({ where: { reviewerId: userId }, data: { reviewerId: tombstone } }),
        prisma.issue.updateMany({ where: { authorId: userId }, data: { authorId: tombstone } }),
        prisma.issue.updateMany({ where: byAgent, data: { agentId: null, authorId: tombstone } }),
        prisma.issue.updateMany({ where: { assigneeId: userId }, data: { assigneeId: null } }),
        prisma.issueComment.updateMany({ where: { authorId: userId }, data: { authorId: tombstone } }),
        prisma.issueComment.updateMany({ where: byAgent, data: { agentId: null, authorId: tombstone } }),
        prisma.provenance.updateMany({ where: { authorId: userId }, data: { authorId: tombstone } }),
        prisma.provenance.updateMany({ where: byAgent, data: { agentId: null, authorId: tombstone } }),
        prisma.workspace.updateMany({
          where: { createdById: userId },
          data: { createdById: tombstone, createdByAgentId: null },
        }),
        prisma.domainEvent.updateMany({
          where: { actor: { in: [`user:${userId}`, ...agentIds.map((id) => `agent:${id}`)] } },
          data: { actor: `user:${tombstone}` },
        }),
        prisma.auditLog.updateMany({ where: { actorUserId: userId }, data: { actorUserId: tombstone } }),
        prisma.auditLog.updateMany({
          where: { actorAgentId: { in: agentIds } },
          data: { actorAgentId: null, actorUserId: tombstone },
        }),
      ]);
    },
  },
  {
    name: "memberships",
    run: async (userId) => {
      // The membership and grant rows themselves go with the user row (ON DELETE CASCADE).
      await handOverSoleOwnership(userId);
    },
  },
  // Tokens, agents, sessions and accounts go with the row (ON DELETE CASCADE).
  {
    name: "user",
    run: async (userId, prisma) => void (await prisma.user.deleteMany({ where: { id: userId, isTombstone: false } })),
  },
];

export const stepsFor = (kind: string): DeletionStep[] => (kind === "user" ? userSteps : projectSteps);
