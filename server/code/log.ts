import { runGit, type Repo } from "@/server/git";

export interface Person {
  name: string;
  email: string;
  date: string;
}

export interface CommitLogEntry {
  sha: string;
  message: string;
  parents: string[];
  author: Person;
  committer: Person;
}

const FIELDS = ["%H", "%P", "%an", "%ae", "%at", "%cn", "%ce", "%ct", "%B"].join("%x1f");
const iso = (seconds: string) => new Date(Number(seconds) * 1000).toISOString();

/** Commits as `git log <args>` lists them (one spawn; `-z` separates records, 0x1f fields). */
export async function logEntries(repo: Repo, args: string[]): Promise<CommitLogEntry[]> {
  const { stdout } = await runGit(["log", "-z", `--format=${FIELDS}`, ...args, "--"], { gitdir: repo.gitdir });
  return stdout
    .split("\0")
    .filter((record) => record.length > 0)
    .map((record) => {
      const [sha, parents, an, ae, at, cn, ce, ct, message] = record.split("\x1f");
      return {
        sha,
        message,
        parents: parents ? parents.split(" ") : [],
        author: { name: an, email: ae, date: iso(at) },
        committer: { name: cn, email: ce, date: iso(ct) },
      };
    });
}

/** How many commits `head` has that `base` lacks (aheadBy), and the reverse (behindBy). */
export async function aheadBehind(
  repo: Repo,
  base: string,
  head: string,
): Promise<{ aheadBy: number; behindBy: number }> {
  const { stdout } = await runGit(["rev-list", "--left-right", "--count", `${base}...${head}`, "--"], {
    gitdir: repo.gitdir,
  });
  const [behindBy, aheadBy] = stdout.trim().split(/\s+/).map(Number);
  return { aheadBy, behindBy };
}
