import { forgetGrants } from "@/server/access";
import { db } from "@/server/db/client";
import { allocateProjectNumber } from "@/server/projects";
import { AGENT_TOKEN_PREFIX, mintToken } from "@/server/auth/tokens";
import { createTestUser } from "@/tests/support/users";

export type TestUser = Awaited<ReturnType<typeof createTestUser>>;
export type TestProject = Awaited<ReturnType<typeof createTestProject>>;

/**
 * A project row owned by `owner`, with direct collaborator grants. Issues, activity and webhooks
 * need only the row (no repository), and there is no route that grants collaborator roles.
 */
export async function createTestProject(
  owner: TestUser,
  options: {
    slug?: string;
    visibility?: "public" | "private";
    collaborators?: Array<{ user: TestUser; role: "read" | "write" | "admin" }>;
  } = {},
) {
  const prisma = await db();
  const project = await prisma.project.create({
    data: {
      namespace: owner.username,
      slug: options.slug ?? `p${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`,
      ownerUserId: owner.id,
      visibility: options.visibility ?? "private",
    },
  });
  for (const { user, role } of options.collaborators ?? []) {
    await prisma.projectCollaborator.create({ data: { projectId: project.id, userId: user.id, role } });
  }
  await forgetGrants();
  return { ...project, base: `/api/projects/@${project.namespace}/${project.slug}` };
}

/** An agent owned by `owner`, with its bearer token. */
export async function createTestAgent(owner: TestUser) {
  const minted = mintToken(AGENT_TOKEN_PREFIX);
  const prisma = await db();
  const agent = await prisma.agent.create({
    data: { ownerId: owner.id, name: "test-agent", tokenHash: minted.hash, tokenPrefix: minted.displayPrefix },
  });
  return { id: agent.id, token: minted.plaintext };
}

/** A change row of `projectId`, from a workspace row of its own (issues only need it to exist for linkedChangeId). */
export async function createTestChange(projectId: string) {
  const prisma = await db();
  const workspace = await prisma.workspace.create({ data: { projectId, name: `ws-${crypto.randomUUID()}` } });
  return prisma.change.create({
    data: {
      projectId,
      workspaceId: workspace.id,
      number: await allocateProjectNumber(prisma, projectId, "issues"),
      status: "accepted",
      baseSha: "0".repeat(40),
      tipSha: "1".repeat(40),
    },
  });
}
