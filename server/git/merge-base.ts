import { processWide, registerCache } from "@/server/caches";
import { readObject, type CommitObject } from "./objects";
import type { Repo } from "./repo";

const PARENT1 = 1;
const PARENT2 = 2;
const STALE = 4;
const RESULT = 8;

/** Commits read before giving up (a long way from the common ancestor): the caller asks git instead. */
const WALK_LIMIT = 2000;
/**
 * Commits read, at most, to number a commit's generation (a process's first walk in a repository
 * numbers its whole history; later ones only what is new). Beyond, that repository's walks go by
 * date for the rest of the process.
 */
const GENERATION_READS_MAX = 10_000;
const tooLongToNumber = processWide("git.longHistories", () => new Set<string>());
registerCache("git.longHistories", {
  entries: () => tooLongToNumber.size,
  limit: null,
  unit: "repositories",
  bound: "one per repository whose history is too long to number (GENERATION_READS_MAX), a path each",
});

interface Node {
  oid: string;
  date: number;
  generation: number;
  parents: string[];
  flags: number;
}

/**
 * A commit's date and parents, and once known its generation: its corrected date (git's generation
 * number v2), the commit's date or, when a parent's is not below it, just above that parent's; in
 * microseconds, so that commits of one second (a fleet lands 25) rise by 1 each and stay at their
 * second. Always above every parent's, whatever the clocks said, and close to the dates: walked in
 * this order, a walk meets a merge commit's parents about when it would by date.
 */
type CommitHeader = { date: number; parents: string[]; generation?: number };
const US_PER_SECOND = 1_000_000;

// A commit never changes, so its date, parents and generation serve every later walk of this
// process: a fleet's walks cross the same recent history over and over. The oldest kept go first.
// About 330 bytes each: the parents' ids are copied, as an id sliced from the parsed commit's text
// kept that whole text (message included) alive with the header, ~600 bytes (bench/soak).
// A fleet's walks need a few hundred recent commits; the bound is what numbering the longest
// history allowed (GENERATION_READS_MAX) keeps at once, as evicting what a numbering walk read
// before it finishes would fail it, plus room for the other repositories' recent history (~4 MB).
const HEADERS_KEPT = GENERATION_READS_MAX + 2_000;
const copied = (oid: string) => Buffer.from(oid, "latin1").toString("latin1");
const headers = processWide("git.commitHeaders", () => new Map<string, CommitHeader>());
registerCache("git.commitHeaders", {
  entries: () => headers.size,
  limit: HEADERS_KEPT,
  bound: "the oldest kept go first past the limit",
});

async function commitHeader(repo: Repo, oid: string): Promise<CommitHeader | null> {
  const kept = headers.get(oid);
  if (kept) return kept;
  const parsed = await readObject(repo, oid);
  if (parsed?.type !== "commit") return null;
  const commit: CommitObject = parsed.object;
  const header = { date: commit.committer.timestamp, parents: commit.parent.map(copied) };
  if (headers.size >= HEADERS_KEPT) headers.delete(headers.keys().next().value!);
  headers.set(oid, header);
  return header;
}

/**
 * Numbers the generation of `oid` and of every commit below it not numbered yet (depth first, each
 * once per process). Null when a commit is missing or the history below is longer than this
 * process has read and may read now (GENERATION_READS_MAX).
 */
async function numberGeneration(repo: Repo, oid: string): Promise<number | null> {
  const stack = [oid];
  let reads = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (!headers.has(top) && ++reads > GENERATION_READS_MAX) {
      tooLongToNumber.add(repo.writeGitdir);
      return null;
    }
    const header = headers.get(top) ?? (await commitHeader(repo, top));
    if (!header) return null;
    if (header.generation !== undefined) {
      stack.pop();
      continue;
    }
    let highest = -Infinity;
    let numbered = true;
    for (const parent of header.parents) {
      const generation = headers.get(parent)?.generation;
      if (generation === undefined) {
        stack.push(parent);
        numbered = false;
      } else highest = Math.max(highest, generation);
    }
    if (numbered) {
      header.generation = Math.max(header.date * US_PER_SECOND, highest + 1);
      stack.pop();
    }
  }
  return headers.get(oid)?.generation ?? null;
}

/**
 * The merge base of two commits when there is exactly one, found in-process with git's own walk
 * (paint_down_to_common: painting each side's ancestors, stopping where only stale commits remain).
 * Null when git's answer would need more (several bases, a walk longer than WALK_LIMIT, or
 * unrelated histories): ask git then.
 *
 * By date, as git walks without a commit-graph, the walk only ends where every line of history
 * meets the other side's: when the histories are many lines merged into one (a fleet's agents,
 * each committing on its own workspace), that is the whole history, every time. By generation
 * (highest first), a commit is walked only after every commit above it, so no side can paint a
 * commit already walked: once no unwalked commit carries one side's paint, no common ancestor is
 * left to find, and the walk stops there. A topological level would not do as the generation: an
 * agent's line is short, so its commits' levels are below nearly the whole project's line, all of
 * which would be walked first. Generations are numbered once per process; a repository whose
 * history is too long to number is walked by date, as before.
 */
export async function uniqueMergeBase(repo: Repo, one: string, two: string): Promise<string | null> {
  if (one === two) return one;
  const numbered =
    !tooLongToNumber.has(repo.writeGitdir) &&
    (await numberGeneration(repo, one)) !== null &&
    (await numberGeneration(repo, two)) !== null;
  if (numbered) {
    const found = await paintDownToCommon(repo, one, two, true);
    if (found !== undefined) return found;
  }
  return (await paintDownToCommon(repo, one, two, false)) ?? null;
}

/** The walk, by generation or by date; undefined when a generation it needed was no longer kept. */
async function paintDownToCommon(
  repo: Repo,
  one: string,
  two: string,
  byGeneration: boolean,
): Promise<string | null | undefined> {
  const nodes = new Map<string, Node>();
  let unnumbered = false;
  const addNode = (oid: string, header: CommitHeader): Node => {
    if (byGeneration && header.generation === undefined) unnumbered = true;
    const node = { oid, date: header.date, parents: header.parents, generation: header.generation ?? 0, flags: 0 };
    nodes.set(oid, node);
    return node;
  };
  // A commit walked or kept is loaded without an await (most of a walk's are; each await is a turn
  // of the event loop); undefined when its header must be read.
  const loadKept = (oid: string): Node | null | undefined => {
    const node = nodes.get(oid);
    if (node) return node;
    if (nodes.size >= WALK_LIMIT) return null;
    const header = headers.get(oid);
    return header && addNode(oid, header);
  };
  const load = async (oid: string): Promise<Node | null> => {
    const kept = loadKept(oid);
    if (kept !== undefined) return kept;
    const header = await commitHeader(repo, oid);
    return header && addNode(oid, header);
  };
  const queue: Node[] = [];
  const before = byGeneration
    ? (a: Node, b: Node) => a.generation > b.generation || (a.generation === b.generation && a.date > b.date)
    : (a: Node, b: Node) => a.date > b.date;
  const popFirst = (): Node => {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (before(queue[i], queue[best])) best = i;
    return queue.splice(best, 1)[0];
  };
  const start = async (oid: string, flag: number) => {
    const node = await load(oid);
    if (!node) return false;
    node.flags |= flag;
    queue.push(node);
    return true;
  };
  if (!(await start(one, PARENT1)) || !(await start(two, PARENT2))) return null;
  const painting = (side: number) => queue.some((node) => (node.flags & (side | STALE)) === side);
  const results: Node[] = [];
  while (byGeneration ? painting(PARENT1) && painting(PARENT2) : painting(PARENT1) || painting(PARENT2)) {
    const commit = popFirst();
    let flags = commit.flags & (PARENT1 | PARENT2 | STALE);
    if (flags === (PARENT1 | PARENT2)) {
      if (!(commit.flags & RESULT)) {
        commit.flags |= RESULT;
        results.push(commit);
      }
      flags |= STALE;
    }
    for (const oid of commit.parents) {
      const parent = loadKept(oid) ?? (await load(oid));
      if (!parent) return null;
      if ((parent.flags & flags) === flags) continue;
      parent.flags |= flags;
      queue.push(parent);
    }
    if (unnumbered) return undefined;
  }
  const bases = results.filter((node) => !(node.flags & STALE));
  return bases.length === 1 ? bases[0].oid : null;
}
