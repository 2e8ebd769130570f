import type { Project } from "@/server/generated/prisma/client";
import { database, dateFromJson, db, type DbOrTx } from "@/server/db";
import { actingUserId, type Identity, type WorkspaceKeyIdentity } from "@/server/auth";
import { conflict, forbidden, notFound, unauthenticated } from "@/server/errors";
import { atLeast, cachedGrants, highest, type AccessLevel, type GrantedLevel } from "@/server/access";
import { orgGrantsOn } from "@/server/orgs";

export type ProjectRole = AccessLevel;
export { atLeast };

/** One source of access to a project (the explain route lists them all). */
export interface Grant {
  via: "owner" | "org" | "team" | "collaborator" | "public";
  name?: string;
  permission: GrantedLevel;
}

/**
 * Every grant a user holds on a project: ownership of its namespace, the organization role and
 * team grants on an org-owned project, a collaborator grant, and read on a public project. Shared
 * grants are cached per instance; every grant change calls forgetGrants, so a revoked grant counts
 * on the next request (on other instances, once the announcement arrives: milliseconds).
 */
export async function projectGrants(userId: string | undefined, project: Project, client?: DbOrTx): Promise<Grant[]> {
  const grants: Grant[] = project.visibility === "public" ? [{ via: "public", permission: "read" }] : [];
  if (!userId) return grants;
  if (project.ownerUserId === userId) grants.unshift({ via: "owner", permission: "owner" });
  const load = () => sharedGrants(userId, project, client);
  // Inside a transaction, read what the transaction sees; never cache it.
  grants.push(...(client ? await load() : await cachedGrants(`${userId}:${project.id}`, load)));
  return grants;
}

/** The grants others gave the user: organization role, team grants, collaborator grant. */
async function sharedGrants(userId: string, project: Project, client?: DbOrTx): Promise<Grant[]> {
  const prisma = client ?? (await db());
  const [orgGrants, collaborator] = await Promise.all([
    project.ownerOrgId
      ? orgGrantsOn({ orgId: project.ownerOrgId, orgSlug: project.namespace, projectId: project.id, userId }, prisma)
      : [],
    prisma.projectCollaborator.findUnique({
      where: { projectId_userId: { projectId: project.id, userId } },
      select: { role: true },
    }),
  ]);
  return collaborator ? [...orgGrants, { via: "collaborator", permission: collaborator.role }] : orgGrants;
}

/**
 * The caller's effective level on a project: the highest of its grants. An agent acts with its
 * owner's level; anonymous callers have read on public projects only.
 */
export async function projectRole(identity: Identity, project: Project, client?: DbOrTx): Promise<ProjectRole> {
  if (identity.kind === "workspace-key") return keyRole(identity, project, client);
  const userId = actingUserId(identity);
  // The owning user holds the highest level there is; nothing else need be read.
  if (userId && project.ownerUserId === userId) return "owner";
  return highest((await projectGrants(userId, project, client)).map((grant) => grant.permission));
}

/**
 * A workspace key reads its own project as a reader and nothing else (another project is "none":
 * 404, as for any caller without access). It lives only while its creator can write there: past
 * that it is refused as a revoked credential (workspaces records why).
 */
async function keyRole(identity: WorkspaceKeyIdentity, project: Project, client?: DbOrTx): Promise<ProjectRole> {
  if (project.id !== identity.projectId) return "none";
  const creatorRole = await projectRole(identity.creator, project, client);
  if (!atLeast(creatorRole, "write") || project.deletingAt) throw unauthenticated("Invalid or expired token");
  return "read";
}

const scopeRefusal = () => forbidden("This workspace key writes only to its own workspace", "TOKEN_SCOPE_INSUFFICIENT");

/**
 * A write a workspace key may make only in its own workspace (a commit, a change, a comment on a
 * change): anything else is 403 TOKEN_SCOPE_INSUFFICIENT. Other callers pass.
 */
export function assertWorkspaceScope(identity: Identity, workspace: { id?: string | null; name?: string }): void {
  if (identity.kind !== "workspace-key") return;
  const same =
    workspace.id !== undefined ? workspace.id === identity.workspaceId : workspace.name === identity.workspace;
  if (!same) throw scopeRefusal();
}

export interface ProjectAccess {
  project: Project;
  role: ProjectRole;
}

/** `{name}` in change routes: `@ns/slug`, `ns/slug` or a project id. */
export async function findProject(
  ref: { namespace: string; slug: string } | { id: string },
  client?: DbOrTx,
): Promise<Project | null> {
  const prisma = client ?? (await db());
  if ("id" in ref) {
    if (!/^[0-9a-f-]{36}$/i.test(ref.id)) return null;
    return prisma.project.findUnique({ where: { id: ref.id } });
  }
  return prisma.project.findUnique({ where: { namespace_slug: { namespace: ref.namespace, slug: ref.slug } } });
}

/**
 * findProject through the per-instance access cache, for reads of the repository and of single
 * resources (the hot path of ETag revalidation). What a read needs of the row never changes while it
 * is cached: the path, owner and visibility are fixed for a project's life, and only a row that is
 * neither importing nor being deleted is kept, while setImportPending and requestDeletion drop the
 * cache (forgetGrants) when the default branch or the project's life changes. A miss is not cached.
 */
function findProjectForRead(ref: { namespace: string; slug: string } | { id: string }): Promise<Project | null> {
  const key = "id" in ref ? `project:${ref.id}` : `project:${projectPath(ref)}`;
  return cachedGrants(
    key,
    () => findProject(ref),
    (project) => project !== null && !project.importPending && !project.deletingAt,
  );
}

/**
 * A row of another area read with the project in one statement: `sql` is a subquery over the
 * project's id (the SQL expression `projectId`) answering one JSON value, its parameters named by
 * `param`; `fromJson` turns that value into the row.
 */
export interface ProjectAlongside<T> {
  sql(projectId: string, param: (value: unknown) => string): string;
  fromJson(value: unknown): T;
}

type ProjectJson = Omit<Project, "createdAt" | "updatedAt" | "deletingAt"> & {
  createdAt: string;
  updatedAt: string;
  deletingAt: string | null;
};

/** findProject and a row read with it (`alongside`), in one statement through the driver. */
export async function findProjectAlongside<T>(
  ref: { namespace: string; slug: string } | { id: string },
  alongside: ProjectAlongside<T>,
): Promise<{ project: Project | null; alongside: T | null }> {
  if ("id" in ref && !/^[0-9a-f-]{36}$/i.test(ref.id)) return { project: null, alongside: null };
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where =
    "id" in ref
      ? `p.id = ${param(ref.id)}::uuid`
      : `p.namespace = ${param(ref.namespace)} AND p.slug = ${param(ref.slug)}`;
  const sql = `SELECT to_jsonb(p) AS project, ${alongside.sql("p.id", param)} AS alongside FROM "Project" AS p WHERE ${where}`;
  const [row] = await (await database()).raw.query<{ project: ProjectJson; alongside: unknown }>(sql, params);
  if (!row) return { project: null, alongside: null };
  const { createdAt, updatedAt, deletingAt, ...rest } = row.project;
  const project: Project = {
    ...rest,
    createdAt: dateFromJson(createdAt),
    updatedAt: dateFromJson(updatedAt),
    deletingAt: deletingAt === null ? null : dateFromJson(deletingAt),
  };
  return { project, alongside: row.alongside === null ? null : alongside.fromJson(row.alongside) };
}

/**
 * Loads a project for the caller. Anyone who cannot read it gets 404 (indistinguishable from a
 * missing project). Below `need`, the caller gets `deniedStatus` (403 by default, 404 where the spec
 * says non-writers must not learn more). `cachedRow`: a read that may take the row from the access
 * cache (above); writes always read the row itself. `workspace`: the write goes to that workspace
 * (a workspace key may make it there). `alongside`: a row of another area, read with the project's
 * own row (never the cache) in one statement.
 */
export async function requireProject<T = never>(
  identity: Identity,
  ref: { namespace: string; slug: string } | { id: string },
  need: ProjectRole = "read",
  options: {
    deniedStatus?: 403 | 404;
    client?: DbOrTx;
    cachedRow?: boolean;
    workspace?: string;
    alongside?: ProjectAlongside<T>;
  } = {},
): Promise<ProjectAccess & { alongside: T | null }> {
  let alongside: T | null = null;
  let project: Project | null;
  if (options.alongside && !options.client)
    ({ project, alongside } = await findProjectAlongside(ref, options.alongside));
  else
    project =
      options.cachedRow && !options.client ? await findProjectForRead(ref) : await findProject(ref, options.client);
  if (!project) throw notFound();
  const role = await projectRole(identity, project, options.client);
  if (role === "none") throw notFound();
  if (identity.kind === "workspace-key" && !atLeast(role, need)) {
    // The creator can write (keyRole checked): a key may write where its workspace is the target.
    if (need !== "write" || options.workspace === undefined) throw scopeRefusal();
    assertWorkspaceScope(identity, { name: options.workspace });
    return { project, role: "write", alongside };
  }
  if (!atLeast(role, need)) {
    throw options.deniedStatus === 404 ? notFound() : forbidden(`This needs ${need} access to the project`);
  }
  return { project, role, alongside };
}

/** Writes that race a deletion are refused. */
export function assertNotDeleting(project: Project): void {
  if (project.deletingAt) throw conflict("The project is being deleted", "TARGET_DELETING");
}

export const projectPath = (project: { namespace: string; slug: string }) => `@${project.namespace}/${project.slug}`;
