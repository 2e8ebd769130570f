import type { Project } from "@/server/generated/prisma/client";
import { forgetGrants } from "@/server/access";
import { writeAudit } from "@/server/audit";
import type { Identity } from "@/server/auth";
import { db } from "@/server/db";
import { conflict, invalid } from "@/server/errors";
import { branchRef, isValidBranchName, openProjectRepo, readRef, setHeadBranch } from "@/server/git";
import { assertNotDeleting, projectPath, requireProject } from "./access";
import { assertNotImporting } from "./imported";

export interface ProjectSettingsInput {
  name?: string;
  description?: string;
  visibility?: "private" | "public";
  defaultBranch?: string;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "P2002";

/**
 * Changes a project's name (its slug: the path and clone URL move, the repository stays), description,
 * visibility or default branch (an existing branch; HEAD follows it). Admins and owners only; only
 * fields that differ are written, and each write is audited with what it was before.
 */
export async function updateProjectSettings(
  identity: Identity,
  ref: { namespace: string; slug: string },
  input: ProjectSettingsInput,
): Promise<Project> {
  const { project } = await requireProject(identity, ref, "admin");
  assertNotDeleting(project);
  assertNotImporting(project);
  const changed = (Object.keys(input) as (keyof ProjectSettingsInput)[]).filter(
    (key) => input[key] !== undefined && input[key] !== (key === "name" ? project.slug : project[key]),
  );
  if (changed.length === 0) return project;
  const repo = openProjectRepo(project.id);
  const branch = input.defaultBranch;
  if (branch !== undefined && (!isValidBranchName(branch) || readRef(repo, branchRef(branch)) === null))
    throw invalid(`Branch ${branch} does not exist`, "VALIDATION_ERROR");
  const before = Object.fromEntries(changed.map((key) => [key, key === "name" ? project.slug : project[key]]));
  const after = Object.fromEntries(changed.map((key) => [key, input[key]]));
  const prisma = await db();
  let updated: Project;
  try {
    updated = await prisma.$transaction(async (tx) => {
      const row = await tx.project.update({
        where: { id: project.id },
        data: {
          slug: input.name,
          description: input.description,
          visibility: input.visibility,
          defaultBranch: branch,
        },
      });
      await writeAudit(tx, {
        action: "project.updated",
        identity,
        projectId: project.id,
        target: `project:${project.id}`,
        // previousPath: where a renamed project's old pages and clone URL are looked up.
        data: { before, after, previousPath: projectPath(project), path: projectPath(row) },
      });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(
        `Project ${projectPath({ namespace: project.namespace, slug: input.name ?? "" })} already exists`,
        "CONFLICT",
      );
    throw error;
  }
  if (branch !== undefined) setHeadBranch(repo, branch);
  // The cached row (by path and by id) and the grants a private project no longer gives anonymous readers.
  await forgetGrants({ projectIds: [project.id] });
  return updated;
}
