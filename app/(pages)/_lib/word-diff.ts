/** A line split around what changed: the common start, the changed middle, the common end. */
export interface LineParts {
  before: string;
  changed: string;
  after: string;
}

const WORD = /[\p{L}\p{N}_]/u;

/**
 * Intra-line highlighting for a removed line and the added line that replaces it: the longest
 * common start and end, widened to whole words so a change never splits one. Linear in the
 * lines' length; a pair with nothing in common is left whole (no highlighting).
 */
export function wordDiff(removed: string, added: string): [LineParts, LineParts] | null {
  let start = 0;
  while (start < removed.length && start < added.length && removed[start] === added[start]) start++;
  while (
    start > 0 &&
    WORD.test(removed[start - 1]) &&
    (WORD.test(removed[start] ?? "") || WORD.test(added[start] ?? ""))
  )
    start--;
  let end = 0;
  while (
    end < removed.length - start &&
    end < added.length - start &&
    removed[removed.length - 1 - end] === added[added.length - 1 - end]
  )
    end++;
  while (
    end > 0 &&
    WORD.test(removed[removed.length - end]) &&
    (WORD.test(removed[removed.length - end - 1] ?? "") || WORD.test(added[added.length - end - 1] ?? ""))
  )
    end--;
  if (start === 0 && end === 0) return null;
  const split = (line: string): LineParts => ({
    before: line.slice(0, start),
    changed: line.slice(start, line.length - end),
    after: line.slice(line.length - end),
  });
  return [split(removed), split(added)];
}

/**
 * For each line of a hunk, its parts when it belongs to a run of removed lines followed by as
 * many added ones (paired in order), as a person reads a rewritten line.
 */
export function pairedParts(lines: Array<{ kind: string; text: string }>): Array<LineParts | null> {
  const parts: Array<LineParts | null> = lines.map(() => null);
  for (let i = 0; i < lines.length;) {
    if (lines[i].kind !== "del") {
      i++;
      continue;
    }
    let dels = i;
    while (dels < lines.length && lines[dels].kind === "del") dels++;
    let adds = dels;
    while (adds < lines.length && lines[adds].kind === "add") adds++;
    const pairs = Math.min(dels - i, adds - dels);
    for (let k = 0; k < pairs; k++) {
      const diff = wordDiff(lines[i + k].text, lines[dels + k].text);
      if (diff) [parts[i + k], parts[dels + k]] = diff;
    }
    i = adds;
  }
  return parts;
}
