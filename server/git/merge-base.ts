import { readObject, type CommitObject } from "./objects";
import type { Repo } from "./repo";

const PARENT1 = 1;
const PARENT2 = 2;
const STALE = 4;
const RESULT = 8;

/** Commits read before giving up (a long way from the common ancestor): the caller asks git instead. */
const WALK_LIMIT = 20_000;

interface Node {
  oid: string;
  date: number;
  parents: string[];
  flags: number;
}

type CommitHeader = Pick<Node, "date" | "parents">;

// A commit never changes, so its date and parents serve every later walk of this process: a
// fleet's walks cross the same recent history over and over (at 50 agents, ~300 commits read,
// inflated and parsed per landed change, growing with the history). The oldest kept go first.
const HEADERS_KEPT = 50_000;
const headers = new Map<string, CommitHeader>();

async function commitHeader(repo: Repo, oid: string): Promise<CommitHeader | null> {
  const kept = headers.get(oid);
  if (kept) return kept;
  const parsed = await readObject(repo, oid);
  if (parsed?.type !== "commit") return null;
  const commit: CommitObject = parsed.object;
  const header = { date: commit.committer.timestamp, parents: commit.parent };
  if (headers.size >= HEADERS_KEPT) headers.delete(headers.keys().next().value!);
  headers.set(oid, header);
  return header;
}

/**
 * The merge base of two commits when there is exactly one, found in-process with git's own walk
 * (paint_down_to_common: newest commit first, painting each side's ancestors, stopping where only
 * stale commits remain). Null when git's answer would need more (several bases, a walk longer than
 * WALK_LIMIT, or unrelated histories): ask git then.
 */
export async function uniqueMergeBase(repo: Repo, one: string, two: string): Promise<string | null> {
  if (one === two) return one;
  const nodes = new Map<string, Node>();
  const load = async (oid: string): Promise<Node | null> => {
    let node = nodes.get(oid);
    if (node) return node;
    if (nodes.size >= WALK_LIMIT) return null;
    const header = await commitHeader(repo, oid);
    if (!header) return null;
    node = { oid, ...header, flags: 0 };
    nodes.set(oid, node);
    return node;
  };
  const queue: Node[] = [];
  const push = (node: Node) => {
    queue.push(node);
  };
  const popNewest = (): Node => {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (queue[i].date > queue[best].date) best = i;
    return queue.splice(best, 1)[0];
  };
  const start = async (oid: string, flag: number) => {
    const node = await load(oid);
    if (!node) return false;
    node.flags |= flag;
    push(node);
    return true;
  };
  if (!(await start(one, PARENT1)) || !(await start(two, PARENT2))) return null;
  const results: Node[] = [];
  while (queue.some((node) => !(node.flags & STALE))) {
    const commit = popNewest();
    let flags = commit.flags & (PARENT1 | PARENT2 | STALE);
    if (flags === (PARENT1 | PARENT2)) {
      if (!(commit.flags & RESULT)) {
        commit.flags |= RESULT;
        results.push(commit);
      }
      flags |= STALE;
    }
    for (const oid of commit.parents) {
      const parent = await load(oid);
      if (!parent) return null;
      if ((parent.flags & flags) === flags) continue;
      parent.flags |= flags;
      push(parent);
    }
  }
  const bases = results.filter((node) => !(node.flags & STALE));
  return bases.length === 1 ? bases[0].oid : null;
}
