/** One file of a diff as the `--raw` summary before the patches describes it. */
export interface SummaryFile {
  /** git's status letter (A, M, D, T, R, C). */
  status: string;
  path: string;
  previousPath: string | null;
  /** Both sides are the same regular file's blob (a pure rename or a mode change): its patch has no hunks to say whether it is binary. */
  sameBlob: boolean;
}

const REGULAR = new Set(["100644", "100755"]);

/**
 * Reads what `git diff --raw -z -p` prints before its patches: a `--raw` entry per file
 * (`:modes oids status`, then one path, two for a rename or copy), then an empty token. Fed chunk by chunk.
 */
export class SummaryReader {
  readonly files: SummaryFile[] = [];
  private pending: Buffer | null = null;
  private tokens: string[] = [];

  /** The bytes after the summary once it is complete (the patches begin there), else null. */
  feed(chunk: Buffer): Buffer | null {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let from = 0;
    for (let end = data.indexOf(0, from); end !== -1; end = data.indexOf(0, from)) {
      const complete = this.token(data.toString("utf8", from, end));
      from = end + 1;
      if (complete) return data.subarray(from);
    }
    this.pending = data.subarray(from);
    return null;
  }

  /** True at the empty token that ends the summary (an entry's header starts with ":", its paths are never empty). */
  private token(token: string): boolean {
    if (token === "") return true;
    this.tokens.push(token);
    // ":oldmode newmode oldoid newoid status"
    const [oldMode, newMode, oldOid, newOid, status] = this.tokens[0].slice(1).split(" ");
    const paths = status.startsWith("R") || status.startsWith("C") ? 2 : 1;
    if (this.tokens.length < paths + 1) return false;
    const sameBlob = oldOid === newOid && REGULAR.has(oldMode) && REGULAR.has(newMode);
    this.files.push({
      status: status.charAt(0),
      previousPath: paths === 2 ? this.tokens[1] : null,
      path: this.tokens[paths],
      sameBlob,
    });
    this.tokens = [];
    return false;
  }
}
