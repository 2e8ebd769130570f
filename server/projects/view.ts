import type { Project } from "@/server/generated/prisma/client";
import { config } from "@/server/config";
import { projectPath } from "./access";

export const projectRemote = (project: { namespace: string; slug: string }) =>
  `${config.baseUrl}/${projectPath(project)}.git`;

/** A workspace fork's git remote (served by the smart-HTTP routes). */
export const workspaceRemote = (project: { namespace: string; slug: string }, workspace: string) =>
  `${config.baseUrl}/${projectPath(project)}/workspaces/${workspace}.git`;

/** The Project record of list and get. */
export function projectView(project: Project) {
  return {
    id: project.id,
    name: project.slug,
    namespace: project.namespace,
    slug: project.slug,
    path: projectPath(project),
    remote: projectRemote(project),
    description: project.description,
    visibility: project.visibility === "public" ? ("public" as const) : ("private" as const),
    defaultBranch: project.defaultBranch,
    source: project.sourceUrl ? { provider: project.sourceProvider, url: project.sourceUrl } : null,
    owner: project.ownerOrgId
      ? { kind: "org" as const, id: project.ownerOrgId }
      : { kind: "user" as const, id: project.ownerUserId ?? "" },
    deleting: project.deletingAt !== null,
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
}
