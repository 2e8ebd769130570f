import {
  flushStagedObjects,
  readCommit,
  runGit,
  streamGit,
  uniqueMergeBase,
  withObjectStage,
  writeCommitObject,
  type GitStream,
  type Repo,
} from "@/server/git";
import { mergeTreesInProcess } from "./tree-merge";

/** One side of a conflicted path as merge-tree reports it (stage 1 base, 2 ours, 3 theirs). */
export interface ConflictStage {
  path: string;
  mode: string;
  oid: string;
  stage: 1 | 2 | 3;
}

export interface MergeOutcome {
  clean: boolean;
  /** The merged tree; for a conflicted merge it holds conflict-marked files. */
  tree: string;
  stages: ConflictStage[];
  conflictingFiles: string[];
}

function parseStage(token: string): ConflictStage {
  const tab = token.indexOf("\t");
  const [mode, oid, stage] = token.slice(0, tab).split(" ");
  return { path: token.slice(tab + 1), mode, oid, stage: Number(stage) as 1 | 2 | 3 };
}

function outcome(clean: boolean, tree: string, stages: ConflictStage[]): MergeOutcome {
  return { clean, tree, stages, conflictingFiles: [...new Set(stages.map((s) => s.path))].sort() };
}

/** The merge in-process when it needs no content merge and no rename detection (tree-merge.ts); null: git decides. */
async function mergeInProcess(
  repo: Repo,
  base: string | null,
  ours: string,
  theirs: string,
): Promise<MergeOutcome | null> {
  if (!base) return null;
  const [baseTree, oursTree, theirsTree] = await Promise.all(
    [base, ours, theirs].map(async (commit) => (await readCommit(repo, commit)).tree),
  );
  const tree = await mergeTreesInProcess(repo, baseTree, oursTree, theirsTree);
  return tree ? outcome(true, tree, []) : null;
}

const mergeCommitsInProcess = async (repo: Repo, ours: string, theirs: string) =>
  mergeInProcess(repo, await uniqueMergeBase(repo, ours, theirs), ours, theirs);

async function mergeWithGit(repo: Repo, ours: string, theirs: string): Promise<MergeOutcome> {
  const { stdout, exitCode } = await runGit(
    ["merge-tree", "--write-tree", "-z", "--allow-unrelated-histories", ours, theirs],
    {
      gitdir: repo.gitdir,
      allowExit: [1],
    },
  );
  const tokens = stdout.split("\0");
  const stages: ConflictStage[] = [];
  if (exitCode === 1) for (let i = 1; i < tokens.length && tokens[i] !== ""; i++) stages.push(parseStage(tokens[i]));
  return outcome(exitCode === 0, tokens[0], stages);
}

/**
 * Three-way merge of two commits without a worktree, as `git merge-tree --write-tree` (merge-ort)
 * merges them: in-process when the merge base is unique and each path changed on one side only
 * (no spawn), otherwise one git spawn (git finds the base). The result tree is written to `repo`.
 */
export async function mergeCommits(repo: Repo, ours: string, theirs: string): Promise<MergeOutcome> {
  return (await mergeCommitsInProcess(repo, ours, theirs)) ?? mergeWithGit(repo, ours, theirs);
}

/** Author and committer of the stand-in commits of `mergeOnBase` (never on a branch). */
const STAND_IN = { name: "svc-forge", email: "merge-base@svc-forge.invalid", timestamp: 0, timezoneOffset: 0 };

/**
 * Three-way merge of `ours` and `theirs` with `base` as the merge base, whatever their history
 * (what `git merge-tree --write-tree --merge-base=<base>` does from git 2.40; the machines have
 * 2.39). In-process when it can be; otherwise each side is restated as a commit of its tree whose
 * only parent is `base`, so `base` is the one merge base git finds; merge-ort reads only the three
 * trees. The stand-ins are unreferenced objects.
 */
export async function mergeOnBase(repo: Repo, base: string, ours: string, theirs: string): Promise<MergeOutcome> {
  const inProcess = await mergeInProcess(repo, base, ours, theirs);
  if (inProcess) return inProcess;
  const restate = async (commit: string) =>
    writeCommitObject(repo, {
      tree: (await readCommit(repo, commit)).tree,
      parent: [base],
      author: STAND_IN,
      committer: STAND_IN,
      message: `${commit}\n`,
    });
  const [oursStandIn, theirsStandIn] = await Promise.all([restate(ours), restate(theirs)]);
  return mergeWithGit(repo, oursStandIn, theirsStandIn);
}

/**
 * `git merge-tree --stdin`, one long-running process for many merges (read in call order). git
 * flushes after each merge's messages but not after the separator that follows them, so the
 * messages and separator of the previous merge are consumed at the start of the next read.
 */
class GitMergeProcess {
  private buffer = "";
  private tokens: string[] = [];
  private waiting: Array<() => void> = [];
  private failure: Error | null = null;
  private tailPending = false;

  /** Started through git's launcher (streamGit), as every git of the server is: never forked from its thread. */
  static async start(repo: Repo): Promise<GitMergeProcess> {
    const git = await streamGit(
      ["merge-tree", "--write-tree", "-z", "--messages", "--stdin", "--allow-unrelated-histories"],
      {
        gitdir: repo.gitdir,
        writable: true,
      },
    );
    return new GitMergeProcess(git);
  }

  private constructor(private readonly git: GitStream) {
    git.stdout.setEncoding("utf8"); // a path's character split across two reads stays whole
    git.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      const parts = this.buffer.split("\0");
      this.buffer = parts.pop()!;
      this.tokens.push(...parts);
      this.wake();
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      this.wake();
    };
    git.stdout.resume(); // handed over paused: a 'data' listener alone does not start it
    git.stdout.on("error", fail);
    // Once its output is all read (as a child's 'close'): the exit comes over the launcher's channel and may pass the last output.
    git.stdout.once(
      "close",
      () =>
        void git.exit.then(
          ({ exitCode, stderr }) => fail(new Error(`git merge-tree --stdin exited (${exitCode}): ${stderr.trim()}`)),
          fail,
        ),
    );
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private async next(): Promise<string> {
    while (this.tokens.length === 0) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return this.tokens.shift()!;
  }

  private async skipTail(): Promise<void> {
    if (!this.tailPending) return;
    // Each message: <path count>, the paths, a type and a text; the separator ends them.
    for (let count = await this.next(); count !== ""; count = await this.next()) {
      for (let i = 0; i < Number(count) + 2; i++) await this.next();
    }
    this.tailPending = false;
  }

  /** Output per merge (with --messages): status, tree, conflicted stages, a blank, messages, a blank. */
  async merge(ours: string, theirs: string): Promise<MergeOutcome> {
    this.git.stdin!.write(`${ours} ${theirs}\n`);
    await this.skipTail();
    const clean = (await this.next()) === "1";
    const tree = await this.next();
    const stages: ConflictStage[] = [];
    for (let token = await this.next(); token !== ""; token = await this.next()) stages.push(parseStage(token));
    this.tailPending = true;
    return outcome(clean, tree, stages);
  }

  close(): void {
    this.git.stdin!.end();
  }
}

/**
 * Many merges, as `mergeCommits` merges them, one at a time in call order (each may name commits
 * written after the session started). The session's objects (merged trees, and the commits its
 * caller writes through `session.repo`) are held in memory until `flush` (one pack for a large
 * batch). Merges git must decide go through one long-running `git merge-tree --stdin`, started at
 * the first of them (what is held is flushed first): a merge-batch pays at most one spawn.
 */
export class MergeSession {
  readonly repo: Repo;
  private git: Promise<GitMergeProcess> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(repo: Repo) {
    this.repo = withObjectStage(repo);
  }

  merge(ours: string, theirs: string): Promise<MergeOutcome> {
    const run = this.queue.then(async () => {
      const inProcess = await mergeCommitsInProcess(this.repo, ours, theirs);
      if (inProcess) return inProcess;
      this.flush();
      return (await (this.git ??= GitMergeProcess.start(this.repo))).merge(ours, theirs);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Writes the objects held so far to the repository's store; they must be there before a ref names them. */
  flush(): void {
    flushStagedObjects(this.repo);
  }

  close(): void {
    void this.git?.then(
      (git) => git.close(),
      () => undefined, // its start's failure was the merge's
    );
  }
}
