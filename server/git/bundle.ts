import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initProjectRepo, initWorkspaceRepo, writeShallowCommits, type Repo } from "./repo";
import { runGit, spawnGit } from "./spawn";

/**
 * Writes `repo` as a git bundle of exactly `refs` (names and oids as recorded, whatever the refs
 * are now: objects never change, refs may have moved since). The bundle is made in a scratch
 * repository that borrows the objects through alternates and holds only those refs, with the
 * history cut at `shallow` (as recorded with the refs, see shallowCommits: without it git walks
 * past a shallow import's last commit to parents that are not there, and fails). Objects
 * reachable from `exclude` are left out (a workspace fork leaves its project's history to the
 * project's bundle). Returns false when there is nothing to bundle (no refs, or all excluded).
 */
export async function bundleRepository(
  repo: Repo,
  refs: Record<string, string>,
  outFile: string,
  { exclude = [], shallow = [] }: { exclude?: string[]; shallow?: string[] } = {},
): Promise<boolean> {
  const names = Object.keys(refs).filter((ref) => ref.startsWith("refs/"));
  if (names.length === 0) return false;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bundle-"));
  try {
    fs.mkdirSync(path.join(scratch, "objects", "info"), { recursive: true });
    fs.mkdirSync(path.join(scratch, "refs"));
    fs.writeFileSync(path.join(scratch, "HEAD"), fs.readFileSync(path.join(repo.gitdir, "HEAD")));
    fs.writeFileSync(
      path.join(scratch, "objects", "info", "alternates"),
      `${repo.objectGitdirs.map((dir) => path.resolve(dir, "objects")).join("\n")}\n`,
    );
    fs.writeFileSync(
      path.join(scratch, "packed-refs"),
      names
        .sort()
        .map((ref) => `${refs[ref]} ${ref}\n`)
        .join(""),
    );
    writeShallowCommits(scratch, shallow);
    const excluded = exclude.length ? ["--not", ...exclude] : [];
    const result = await spawnGit(["bundle", "create", "--quiet", outFile, ...names, ...excluded], { gitdir: scratch });
    if (result.exitCode !== 0) {
      if (/empty bundle/i.test(result.stderr)) return false;
      throw new Error(`git bundle create failed: ${result.stderr.trim()}`);
    }
    return true;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The refs a bundle carries (`ref -> oid`), HEAD left out. */
export async function listBundleRefs(bundleFile: string): Promise<Record<string, string>> {
  const { stdout } = await runGit(["bundle", "list-heads", bundleFile]);
  const refs: Record<string, string> = {};
  for (const line of stdout.split("\n")) {
    const [oid, ref] = line.trim().split(" ");
    if (ref && ref !== "HEAD") refs[ref] = oid;
  }
  return refs;
}

/**
 * Creates a project's repository (or, with `workspace`, a fork borrowing the project's objects) from
 * a bundle, or with no bundle from `refs` alone (a fork whose commits are all in its project), its
 * history cut at `shallow` as the backed-up one was (a bundle records none: git would look for the
 * parents of a shallow import's last commit). Verifies the bundle against the repository (its
 * prerequisites present) before fetching it. Aborting `signal` kills the git command running and
 * rejects with the signal's reason.
 */
export async function unbundleRepository(
  target: { projectId: string; workspace?: string; head: string; shallow?: string[] },
  bundleFile: string | null,
  refs: Record<string, string>,
  { signal }: { signal?: AbortSignal } = {},
): Promise<Repo> {
  const repo = target.workspace
    ? initWorkspaceRepo(target.projectId, target.workspace, target.head)
    : initProjectRepo(target.projectId, target.head);
  writeShallowCommits(repo.gitdir, target.shallow ?? []);
  if (bundleFile) {
    await runGit(["bundle", "verify", "--quiet", bundleFile], { gitdir: repo.gitdir, signal });
    await runGit(["fetch", "--quiet", "--no-write-fetch-head", bundleFile, "+refs/*:refs/*"], {
      gitdir: repo.gitdir,
      signal,
    });
  }
  const updates = Object.entries(refs)
    .map(([ref, oid]) => `update ${ref} ${oid}\n`)
    .join("");
  if (updates) await runGit(["update-ref", "--stdin"], { gitdir: repo.gitdir, input: updates, signal });
  return repo;
}
