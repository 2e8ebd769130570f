import { DIFF_EXPAND_CONTEXT_MAX, DIFF_EXPAND_FILES_MAX } from "@/server/limits";

/** The context a change page's hunks show until a file is expanded (the server's git -U). */
const CONTEXT = 3;
/** Lines one "more lines" link adds above and below each change of a file. */
const STEP = 20;

/**
 * The files shown with more context: `?expand=<file>:<lines>` (repeatable; the file's index in the
 * whole diff, the context lines). What does not parse or exceeds the bounds is left out (the page
 * still renders), as are files past the first DIFF_EXPAND_FILES_MAX.
 */
export function expansionsOf(query: Record<string, string | string[] | undefined>): Map<number, number> {
  const values = typeof query.expand === "string" ? [query.expand] : (query.expand ?? []);
  const expansions = new Map<number, number>();
  for (const value of values) {
    const match = /^(\d{1,6}):(\d{1,4})$/.exec(value);
    const context = match ? Number(match[2]) : NaN;
    if (match && context <= DIFF_EXPAND_CONTEXT_MAX && expansions.size < DIFF_EXPAND_FILES_MAX)
      expansions.set(Number(match[1]), context);
  }
  return expansions;
}

/** The page's query: its page and these expansions. */
export function expansionQuery(page: number, expansions: Map<number, number>): string {
  const query = new URLSearchParams({ page: String(page) });
  for (const [file, context] of expansions) query.append("expand", `${file}:${context}`);
  return `?${query}`;
}

/**
 * A file's "more lines" link: the same page with STEP more lines of context for it (the others kept,
 * the oldest expansion dropped when the page would hold too many), back at the file; none at the
 * bound. The href is only a query (the page's own path is implied): a page has one a hunk.
 */
export function expandLink(
  page: number,
  expansions: Map<number, number>,
): (index: number) => { href: string; more: number } | null {
  return (index) => {
    const current = expansions.get(index) ?? CONTEXT;
    const next = Math.min(current + STEP, DIFF_EXPAND_CONTEXT_MAX);
    if (next === current) return null;
    const others = [...expansions].filter(([file]) => file !== index).slice(-(DIFF_EXPAND_FILES_MAX - 1));
    const query = expansionQuery(page, new Map([...others, [index, next]]));
    return { href: `${query}#file-${index}`, more: next - current };
  };
}
