import { randomUUID } from "node:crypto";
import type { Project } from "@/server/generated/prisma/client";
import { actingUserId, actorOf, type Identity } from "@/server/auth";
import { database, db, isoTimestampSql } from "@/server/db";
import { recordEvent } from "@/server/events";
import { commitToBranch, initProjectRepo, removeProjectRepos, type FileMap } from "@/server/git";
import { conflict, notFound, unauthenticated } from "@/server/errors";
import { orgReachOf, requireOrg } from "@/server/orgs";
import { projectPath, requireProject } from "./access";
import { projectRemote } from "./view";
import { commitAuthorship } from "./authorship";
import { assertFileMapWithinLimits } from "./file-map";

export const DEFAULT_BRANCH = "main";

export interface CreateProjectInput {
  name: string;
  visibility: "private" | "public";
  files?: Record<string, string>;
  seed?: boolean;
  org?: string;
}

const starterFiles = (name: string): FileMap => ({
  "README.md": `# ${name}\n\nCreated on svc-forge.\n`,
  ".gitignore": "node_modules/\n.env\n",
});

function initialFiles(input: CreateProjectInput): FileMap {
  const files: FileMap = { ...(input.seed ? starterFiles(input.name) : {}), ...(input.files ?? {}) };
  return Object.keys(files).length > 0 ? files : { ".gitkeep": "" };
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "P2002";

/** The namespace a new project goes to: the caller's own, or an organization the caller can write to. */
async function owningNamespace(identity: Identity, org: string | undefined) {
  const userId = actingUserId(identity);
  if (!userId) throw unauthenticated("A user or agent identity is required");
  if (org) {
    // Non-members get 404 (the organization is not found for them); members below write get 403.
    const { org: organization } = await requireOrg(identity, org, "write");
    return { namespace: organization.slug, ownerUserId: null, ownerOrgId: organization.id };
  }
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user) throw unauthenticated();
  return { namespace: user.username, ownerUserId: user.id, ownerOrgId: null };
}

/**
 * Creates a project: its repository, then in one transaction the row, `project.created` and the
 * first commit's move of the default branch. The database's unique (namespace, slug) decides a race between two creations; the
 * loser's repository (under its own id) is removed.
 */
export async function createProject(
  identity: Identity,
  input: CreateProjectInput,
): Promise<{ project: Project; commit: string }> {
  const owner = await owningNamespace(identity, input.org);
  const files = initialFiles(input);
  assertFileMapWithinLimits(files);
  const prisma = await db();
  const taken = () =>
    conflict(`Project ${projectPath({ namespace: owner.namespace, slug: input.name })} already exists`, "CONFLICT");
  if (await prisma.project.findUnique({ where: { namespace_slug: { namespace: owner.namespace, slug: input.name } } }))
    throw taken();
  const { author, committer } = commitAuthorship(identity);
  const id = randomUUID();
  const repo = initProjectRepo(id, DEFAULT_BRANCH);
  try {
    // The first commit moves the default branch through the door: the row and `project.created` are
    // the move's record, so subscribers (a policy's deployments of main) see the project exist.
    let project!: Project;
    const actor = actorOf(identity);
    const { oid } = await commitToBranch(repo, DEFAULT_BRANCH, {
      files,
      message: "Initial commit",
      author,
      committer,
      expectedTip: null,
      move: { project: { id, defaultBranch: DEFAULT_BRANCH }, workspace: null, actor, cause: "init", changeIds: [] },
      recordMove: async (tx, move) => {
        project = await tx.project.create({
          data: {
            id,
            namespace: owner.namespace,
            slug: input.name,
            ownerUserId: owner.ownerUserId,
            ownerOrgId: owner.ownerOrgId,
            visibility: input.visibility,
            defaultBranch: DEFAULT_BRANCH,
          },
        });
        await recordEvent(tx, {
          projectId: id,
          kind: "project.created",
          actor,
          data: { path: projectPath(project), commit: move.oid, visibility: project.visibility },
        });
      },
    });
    return { project, commit: oid };
  } catch (error) {
    removeProjectRepos(id);
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/** Projects the caller owns or reaches through an organization, a team or a collaborator grant (none for anonymous). */
export async function listProjects(identity: Identity): Promise<Project[]> {
  const userId = actingUserId(identity);
  if (!userId) return [];
  const prisma = await db();
  // A workspace key sees its own project and nothing else of its creator's.
  if (identity.kind === "workspace-key")
    return prisma.project.findMany({ where: { id: identity.projectId, deletingAt: null } });
  const [reach, grants] = await Promise.all([
    orgReachOf(userId),
    prisma.projectCollaborator.findMany({ where: { userId }, select: { projectId: true } }),
  ]);
  return prisma.project.findMany({
    where: {
      deletingAt: null,
      OR: [
        { ownerUserId: userId },
        { ownerOrgId: { in: reach.orgIds } },
        { id: { in: [...reach.teamProjectIds, ...grants.map((g) => g.projectId)] } },
      ],
    },
    orderBy: [{ namespace: "asc" }, { slug: "asc" }],
  });
}

/** One project; `setVersion` gets its version (the parts `projectRowVersion` reads). */
export async function getProject(
  identity: Identity,
  ref: { namespace: string; slug: string },
  setVersion?: (...parts: string[]) => void,
): Promise<Project> {
  const { project } = await requireProject(identity, ref, "read");
  setVersion?.(
    ...rowVersionParts({
      ...project,
      deletingAt: project.deletingAt?.toISOString() ?? null,
      updatedAt: project.updatedAt.toISOString(),
    }),
  );
  return project;
}

/** The columns of a project's answer that can change (its path, id and creation never do), and the remote it names. */
interface ProjectRowVersion {
  id: string;
  namespace: string;
  slug: string;
  visibility: string;
  defaultBranch: string;
  sourceProvider: string | null;
  sourceUrl: string | null;
  ownerOrgId: string | null;
  ownerUserId: string | null;
  deletingAt: string | null;
  updatedAt: string;
}

const rowVersionParts = (row: ProjectRowVersion) =>
  [
    row.id,
    projectRemote(row),
    row.visibility,
    row.defaultBranch,
    row.sourceProvider,
    row.sourceUrl,
    row.ownerOrgId,
    row.ownerUserId,
    row.deletingAt,
    row.updatedAt,
  ].map((part) => part ?? "");

/**
 * A project's version, for the REST pipeline's 304 before dispatch: access from the cached row, the
 * changing columns from one indexed read through the driver (the query engine costs more than the read).
 */
export async function projectRowVersion(
  identity: Identity,
  ref: { namespace: string; slug: string },
): Promise<string[]> {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  const rows = await (
    await database()
  ).raw.query<ProjectRowVersion>(
    `SELECT "id", "namespace", "slug", "visibility"::text, "defaultBranch", "sourceProvider", "sourceUrl", "ownerOrgId", "ownerUserId",
       ${isoTimestampSql("deletingAt")} AS "deletingAt", ${isoTimestampSql("updatedAt")} AS "updatedAt"
     FROM "Project" WHERE "id" = $1`,
    [project.id],
  );
  if (rows.length === 0) throw notFound();
  return rowVersionParts(rows[0]);
}
