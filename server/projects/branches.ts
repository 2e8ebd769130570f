import type { Identity } from "@/server/auth";
import { createBranch, deleteBranch, openProjectRepo } from "@/server/git";
import { conflict } from "@/server/errors";
import { assertNotDeleting, requireProject } from "./access";
import { assertNotImporting } from "./imported";

type ProjectRef = { namespace: string; slug: string };

/** Writers only: anyone else gets 404, as if the project did not exist. */
async function writableProject(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "write", { deniedStatus: 404 });
  assertNotDeleting(project);
  assertNotImporting(project);
  return project;
}

export async function createProjectBranch(identity: Identity, ref: ProjectRef, input: { name: string; startPoint?: string }) {
  const project = await writableProject(identity, ref);
  return createBranch(openProjectRepo(project.id), { ...input, defaultBranch: project.defaultBranch });
}

export async function deleteProjectBranch(identity: Identity, ref: ProjectRef, name: string) {
  const project = await writableProject(identity, ref);
  if (name === project.defaultBranch) throw conflict(`${name} is the default branch`, "DEFAULT_BRANCH_PROTECTED");
  await deleteBranch(openProjectRepo(project.id), name);
  return { deleted: true, name };
}
