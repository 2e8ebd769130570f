import { randomUUID } from "node:crypto";
import type { Project } from "@/server/generated/prisma/client";
import type { Tx } from "@/server/db";
import { db } from "@/server/db";
import { actorOf, type Identity } from "@/server/auth";
import { recordEvent } from "@/server/events";
import { conflict } from "@/server/errors";
import { initProjectRepo, removeProjectRepos } from "@/server/git";
import { forgetGrants } from "@/server/access";
import { projectPath } from "./access";

/**
 * Writes that would race an import (workspaces, changes, pushes, branch writes) are refused while
 * its project has no completed import. The one guard every writer calls.
 */
export function assertNotImporting(project: Pick<Project, "importPending">): void {
  if (project.importPending) throw conflict("The project's import has not completed", "IMPORT_IN_PROGRESS");
}

export interface ImportTargetInput {
  ownerUserId: string;
  namespace: string;
  slug: string;
  visibility: "private" | "public";
  defaultBranch: string;
  source: { provider: string; url: string };
}

/**
 * Creates the project an import fills: an empty repository and the row marked import-pending, with
 * `project.created`; `within` adds the importer's rows in the same transaction. A unique violation
 * (a concurrent creation of the same path) removes the repository and answers 409.
 */
export async function createImportTarget<T>(
  identity: Identity,
  input: ImportTargetInput,
  within: (tx: Tx, project: Project) => Promise<T>,
): Promise<{ project: Project; extra: T }> {
  const id = randomUUID();
  initProjectRepo(id, input.defaultBranch);
  try {
    return await (
      await db()
    ).$transaction(async (tx) => {
      const project = await tx.project.create({
        data: {
          id,
          namespace: input.namespace,
          slug: input.slug,
          ownerUserId: input.ownerUserId,
          visibility: input.visibility,
          defaultBranch: input.defaultBranch,
          sourceProvider: input.source.provider,
          sourceUrl: input.source.url,
          importPending: true,
        },
      });
      await recordEvent(tx, {
        projectId: id,
        kind: "project.created",
        actor: actorOf(identity),
        data: { path: projectPath(project), visibility: project.visibility, source: input.source },
      });
      return { project, extra: await within(tx, project) };
    });
  } catch (error) {
    removeProjectRepos(id);
    if ((error as { code?: string }).code === "P2002")
      throw conflict(`Project @${input.namespace}/${input.slug} already exists`, "CONFLICT");
    throw error;
  }
}

/**
 * Marks a project import-pending again (a re-triggered import) or done, with its default branch.
 * Cached rows are dropped; one read before this transaction commits sees an import-pending row, which
 * is never cached (requireProject's `cachedRow`).
 */
export async function setImportPending(
  tx: Tx,
  projectId: string,
  pending: boolean,
  defaultBranch?: string,
): Promise<void> {
  await tx.project.update({
    where: { id: projectId },
    data: { importPending: pending, ...(defaultBranch ? { defaultBranch } : {}) },
  });
  await forgetGrants();
}
