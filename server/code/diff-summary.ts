/** One file of a diff as the summary before the patches describes it (`--raw --numstat -z`). */
export interface SummaryFile {
  /** git's status letter (A, M, D, T, R, C). */
  status: string;
  path: string;
  previousPath: string | null;
  additions: number;
  deletions: number;
  binary: boolean;
}

/**
 * Reads what `git diff --raw --numstat -z -p` prints before its patches: a `--raw` entry per file
 * (`:modes oids status`, then one path, two for a rename or copy), then a `--numstat` entry per file
 * in the same order (`added\tdeleted\tpath`, or `added\tdeleted\t` and two paths; `-` for binary),
 * then an empty token. Fed chunk by chunk.
 */
export class SummaryReader {
  readonly files: SummaryFile[] = [];
  private pending: Buffer | null = null;
  private tokens: string[] = [];
  private inRaw = true;
  private counted = 0;

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

  private token(token: string): boolean {
    // A raw entry's header starts with ":"; the first token that does not is the first count.
    if (this.inRaw && (this.tokens.length > 0 || token.startsWith(":"))) {
      this.tokens.push(token);
      const header = this.tokens[0];
      const status = header.charAt(header.lastIndexOf(" ") + 1);
      const paths = status === "R" || status === "C" ? 2 : 1;
      if (this.tokens.length === paths + 1) {
        this.files.push({ status, previousPath: paths === 2 ? this.tokens[1] : null, path: this.tokens[paths], additions: 0, deletions: 0, binary: false });
        this.tokens = [];
      }
      return false;
    }
    this.inRaw = false;
    if (this.counted === this.files.length) return true;
    this.tokens.push(token);
    const counts = this.tokens[0];
    const renamed = counts.indexOf("\t", counts.indexOf("\t") + 1) === counts.length - 1;
    if (this.tokens.length < (renamed ? 3 : 1)) return false;
    const [added, deleted] = counts.split("\t", 2);
    const file = this.files[this.counted++];
    file.binary = added === "-";
    file.additions = file.binary ? 0 : Number(added);
    file.deletions = file.binary ? 0 : Number(deleted);
    this.tokens = [];
    return false;
  }
}
