import { DIFF_PATCH_BYTES_MAX } from "@/server/limits";

/** Only a file's header line starts with "diff --git " (hunk lines start with " +-\\@", and paths with a newline are quoted). */
const HEADER = Buffer.from("\ndiff --git ");
/** A section's hunks begin at its first "@@" line; before it only header lines (whose first words are fixed). */
const HUNKS = Buffer.from("\n@@");
const ADDED = Buffer.from("\n+");
const DELETED = Buffer.from("\n-");
/** What git prints instead of hunks for a binary file (the second with --binary). */
const BINARY_MARKS = [Buffer.from("\nBinary files "), Buffer.from("\nGIT binary patch\n")];
const NEWLINE = 0x0a;
const PLUS = 0x2b;
const MINUS = 0x2d;

/** One `diff --git` section: its line counts, whether git found the file binary, and for kept sections its hunks. */
export interface Section {
  additions: number;
  deletions: number;
  binary: boolean;
  /** The hunks as `git diff` prints them after the header ("" when none), null over the patch cap; undefined when not kept. */
  patch?: string | null;
}

const occurrences = (bytes: Buffer, needle: Buffer) => {
  let count = 0;
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length)) count++;
  return count;
};

/**
 * One section read piece by piece: its header is held until the first "@@" line, then each hunk
 * line that starts with "+" or "-" is counted by native searches for "\n+" and "\n-" (no per-line
 * work in JS). A kept section keeps its hunk bytes up to the patch cap.
 */
class SectionScan {
  private header: Buffer | null = Buffer.alloc(0);
  private afterNewline = false;
  private parts: Buffer[] = [];
  private bytes = 0;
  readonly section: Section = { additions: 0, deletions: 0, binary: false };

  constructor(private readonly keep: boolean) {}

  feed(piece: Buffer): void {
    if (this.header) {
      // Header lines are short (a binary or mode-only section is all header): holding them is cheap.
      const header = this.header.length > 0 ? Buffer.concat([this.header, piece]) : piece;
      const at = header.indexOf(HUNKS);
      if (at === -1) {
        this.header = header;
        return;
      }
      this.header = null;
      this.afterNewline = true;
      piece = header.subarray(at + 1);
    }
    if (piece.length === 0) return;
    if (this.afterNewline) this.countLineStart(piece[0]);
    this.section.additions += occurrences(piece, ADDED);
    this.section.deletions += occurrences(piece, DELETED);
    this.afterNewline = piece[piece.length - 1] === NEWLINE;
    if (!this.keep || this.bytes > DIFF_PATCH_BYTES_MAX) return;
    this.bytes += piece.length;
    if (this.bytes > DIFF_PATCH_BYTES_MAX) this.parts = [];
    else this.parts.push(piece);
  }

  close(): Section {
    if (this.header) this.section.binary = BINARY_MARKS.some((mark) => this.header!.includes(mark));
    if (this.keep) this.section.patch = this.bytes > DIFF_PATCH_BYTES_MAX ? null : Buffer.concat(this.parts).toString("utf8");
    return this.section;
  }

  private countLineStart(byte: number): void {
    if (byte === PLUS) this.section.additions++;
    else if (byte === MINUS) this.section.deletions++;
  }
}

/**
 * Splits `git diff -p` output into its files' sections (one per `diff --git` header; a type change
 * has two) by native searches for the next header, and reads every section's counts; the sections
 * `[first, end)` also keep their hunks. Memory follows the kept sections, not the diff.
 */
export class SectionReader {
  readonly sections: Section[] = [];
  // The patches begin with a header that has no newline before it: start as if after one.
  private tail: Buffer | null = Buffer.from("\n");
  private scan: SectionScan | null = null;

  constructor(
    private readonly first: number,
    private readonly end: number,
  ) {}

  feed(chunk: Buffer): void {
    const data = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    this.tail = null;
    let from = 0;
    for (let at = data.indexOf(HEADER, from); at !== -1; at = data.indexOf(HEADER, from)) {
      this.scan?.feed(data.subarray(from, at + 1));
      this.next();
      from = at + 1;
    }
    // The last bytes may begin a header that the next chunk completes.
    const held = Math.max(from, data.length - (HEADER.length - 1));
    this.scan?.feed(data.subarray(from, held));
    this.tail = data.subarray(held);
  }

  /** The output ended: the last section is complete. */
  finish(): void {
    if (this.tail) this.scan?.feed(this.tail);
    this.tail = null;
    if (this.scan) this.sections.push(this.scan.close());
    this.scan = null;
  }

  private next(): void {
    if (this.scan) this.sections.push(this.scan.close());
    const index = this.sections.length;
    this.scan = new SectionScan(index >= this.first && index < this.end);
  }
}
