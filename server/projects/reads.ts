import type { Project } from "@/server/generated/prisma/client";
import type { Identity } from "@/server/auth";
import { db, NEWEST_FIRST, olderThan } from "@/server/db";
import {
  lastCommitsIn,
  listDirectory,
  listFiles,
  listBranches,
  log,
  openProjectRepo,
  readFile,
  resolveBranch,
  type Repo,
} from "@/server/git";
import { notFound } from "@/server/errors";
import { BRANCH_LIST_CAP, TREE_PAGE_ENTRIES } from "@/server/limits";
import { projectPath, requireProject } from "./access";
import { resolveCommit } from "./commit-names";
import { languageShares } from "./languages";

type ProjectRef = { namespace: string; slug: string };

const envelope = (project: Project) => ({
  namespace: project.namespace,
  slug: project.slug,
  path: projectPath(project),
});

/** Called with what a read's answer is a function of: the parts of its ETag. */
type SetVersion = (...parts: string[]) => void;

/**
 * A readable project at a branch (`ref`, default the default branch), per the ref rules of read
 * routes, or at a full commit id where `commitIds` allows one (the pages' permalinks; the spec's
 * reads take branches only). The answer depends only on the project's path, the ref and its commit (its version).
 */
async function readAt(
  identity: Identity,
  ref: ProjectRef,
  branch: string | undefined,
  setVersion?: SetVersion,
  commitIds = false,
) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  const repo = openProjectRepo(project.id);
  const name = branch ?? project.defaultBranch;
  const commit = commitIds ? await resolveCommit(repo, name) : resolveBranch(repo, name);
  setVersion?.(...readVersion(project, name, commit));
  return { project, repo, ref: name, commit };
}

const readVersion = (project: Project, branch: string, commit: string) => [projectPath(project), branch, commit];

/** What a read at a branch is a function of (the REST pipeline's 304 before dispatch); the reads below pass the same parts to `setVersion`. */
export async function projectReadVersion(identity: Identity, ref: ProjectRef, branch?: string): Promise<string[]> {
  const at = await readAt(identity, ref, branch);
  return readVersion(at.project, at.ref, at.commit);
}

export async function projectFiles(identity: Identity, ref: ProjectRef, branch?: string, setVersion?: SetVersion) {
  const at = await readAt(identity, ref, branch, setVersion);
  return { ...envelope(at.project), ref: at.ref, commit: at.commit, files: await listFiles(at.repo, at.commit) };
}

/** Bytes per language of the tree at a branch (the project page's language bar). */
export async function projectLanguages(identity: Identity, ref: ProjectRef, branch?: string, setVersion?: SetVersion) {
  const at = await readAt(identity, ref, branch, setVersion);
  return { ...envelope(at.project), ref: at.ref, commit: at.commit, ...(await languageShares(at.repo, at.commit)) };
}

const README = /^readme(\.md|\.markdown)?$/i;

/**
 * One directory at a branch or a full commit id for the tree pages: a page of its entries
 * (directories first), how many there are, and the name of its README if it has one (on any
 * page). 404 when no directory is there.
 */
export async function projectDirectory(
  identity: Identity,
  ref: ProjectRef,
  dirPath: string,
  page: number,
  branch?: string,
) {
  const at = await readAt(identity, ref, branch, undefined, true);
  const entries = await listDirectory(at.repo, at.commit, dirPath);
  if (!entries) throw notFound(`No directory ${dirPath} at ${at.ref}`);
  const readme = entries.find((entry) => entry.kind === "file" && README.test(entry.name));
  const lastCommits = await lastCommitsIn(at.repo, at.commit, dirPath);
  return {
    ref: at.ref,
    commit: at.commit,
    total: entries.length,
    pageSize: TREE_PAGE_ENTRIES,
    entries: entries
      .slice((page - 1) * TREE_PAGE_ENTRIES, page * TREE_PAGE_ENTRIES)
      .map((entry) => ({ ...entry, lastCommit: lastCommits.get(entry.name) ?? null })),
    readme: readme?.name ?? null,
  };
}

/**
 * One file: `path` echoes the file read, `project` is the project path. At a branch (the spec's
 * content route), or also at a full commit id with `commitIds` (the file pages).
 */
export async function projectContent(
  identity: Identity,
  ref: ProjectRef,
  filePath: string,
  branch?: string,
  setVersion?: SetVersion,
  commitIds = false,
) {
  const at = await readAt(identity, ref, branch, setVersion, commitIds);
  const file = await readFile(at.repo, at.commit, filePath);
  if (!file) throw notFound(`No file ${filePath} at ${at.ref}`);
  return {
    namespace: at.project.namespace,
    slug: at.project.slug,
    path: filePath,
    project: projectPath(at.project),
    ref: at.ref,
    commit: at.commit,
    ...file,
  };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The log at a branch (the spec's route), or also at a full commit id with `commitIds` (the pages' History). */
export async function projectLog(
  identity: Identity,
  ref: ProjectRef,
  depth: number,
  branch?: string,
  setVersion?: SetVersion,
  commitIds = false,
) {
  const at = await readAt(identity, ref, branch, setVersion, commitIds);
  const entries = await log(at.repo, at.commit, depth);
  return {
    ...envelope(at.project),
    ref: at.ref,
    commit: at.commit,
    log: entries.map((entry) => ({
      sha: entry.sha,
      message: entry.message,
      parents: entry.parents,
      author: { name: entry.author.name, email: entry.author.email, date: iso(entry.author.timestamp) },
      committer: { name: entry.committer.name, email: entry.committer.email, date: iso(entry.committer.timestamp) },
    })),
  };
}

/** The branch list envelope: at most BRANCH_LIST_CAP entries, never dropping the default branch. */
export function branchEnvelope(repo: Repo, defaultBranch: string) {
  const all = listBranches(repo);
  let branches = all;
  if (all.length > BRANCH_LIST_CAP) {
    const main = all.find((branch) => branch.name === defaultBranch);
    const others = all
      .filter((branch) => branch.name !== defaultBranch)
      .slice(0, main ? BRANCH_LIST_CAP - 1 : BRANCH_LIST_CAP);
    branches = main ? [main, ...others].sort((a, b) => (a.name < b.name ? -1 : 1)) : others;
  }
  return { defaultBranch, branches, truncated: branches.length < all.length, totalBranchCount: all.length };
}

export async function projectBranches(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  return branchEnvelope(openProjectRepo(project.id), project.defaultBranch);
}

/**
 * A project's provenance records, newest first (records of one batch share a time: the id breaks
 * the tie); `before` (a record id of this project: the previous page's last) reads the older page.
 */
export async function projectProvenance(identity: Identity, ref: ProjectRef, page: { limit: number; before?: string }) {
  const { project } = await requireProject(identity, ref, "read");
  const prisma = await db();
  let cursor: { createdAt: Date; id: string } | null = null;
  if (page.before !== undefined) {
    cursor = /^[0-9a-f-]{36}$/i.test(page.before)
      ? await prisma.provenance.findFirst({
          where: { id: page.before, projectId: project.id },
          select: { id: true, createdAt: true },
        })
      : null;
    if (!cursor) throw notFound("No provenance record of this project has that id");
  }
  const records = await prisma.provenance.findMany({
    where: { projectId: project.id, ...(cursor ? olderThan(cursor) : {}) },
    orderBy: NEWEST_FIRST,
    take: page.limit,
  });
  return {
    ...envelope(project),
    records: records.map((record) => ({
      id: record.id,
      commitSha: record.commitSha,
      changeId: record.changeId,
      authorId: record.authorId,
      agentId: record.agentId,
      model: record.model,
      createdAt: record.createdAt.toISOString(),
    })),
  };
}
