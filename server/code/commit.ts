import type { Identity } from "@/server/auth";
import { db } from "@/server/db";
import { notFound } from "@/server/errors";
import { between, diffCommits, EMPTY_TREE } from "./diff";
import { logEntries } from "./log";
import { readableRepo, resolveCommit, type ProjectRef } from "./at";

/** One commit with its diff against its first parent (a root commit against the empty tree), a page of files. */
export async function commitDetail(
  identity: Identity,
  ref: ProjectRef,
  name: string,
  page: { limit: number; offset: number },
) {
  const { project, repo } = await readableRepo(identity, ref);
  const sha = await resolveCommit(repo, name);
  const [commit] = await logEntries(repo, ["-1", sha]);
  if (!commit) throw notFound(`No commit ${name}`);
  const [diff, provenance] = await Promise.all([
    diffCommits(repo, between(commit.parents[0] ?? EMPTY_TREE, sha), { context: 3, ...page }),
    (await db()).provenance.findFirst({
      where: { projectId: project.id, commitSha: sha },
      select: { changeId: true, agentId: true, model: true },
    }),
  ]);
  return { commit: { ...commit, ...(provenance ? { provenance } : {}) }, ...diff };
}
