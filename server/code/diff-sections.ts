import { DIFF_PATCH_BYTES_MAX } from "@/server/limits";

/** Only a file's header line starts with "diff --git " (hunk lines start with " +-\\@", and paths with a newline are quoted). */
const HEADER = Buffer.from("\ndiff --git ");
/** Room for a section's header lines (paths) above the patch cap before its bytes are dropped. */
const HEADER_ROOM = 64 * 1024;

/**
 * Splits `git diff -p` output into its files' sections (one per `diff --git` header; a type change
 * has two) and keeps the sections `[first, end)` only. Sections before `first` are skipped with
 * native searches for the next header (no per-line work), and feed() says when `end` is reached so
 * the caller can stop reading. A kept section over the patch cap is kept as null.
 */
export class SectionReader {
  readonly kept: (Buffer | null)[] = [];
  private index = -1;
  // The patches begin with a header that has no newline before it: start as if after one.
  private tail: Buffer | null = Buffer.from("\n");
  private parts: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly first: number,
    private readonly end: number,
  ) {}

  /** Feeds patch bytes; true once every kept section is complete (the rest need not be read). */
  feed(chunk: Buffer): boolean {
    const data = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    this.tail = null;
    let from = 0;
    for (let at = data.indexOf(HEADER, from); at !== -1; at = data.indexOf(HEADER, from)) {
      this.take(data.subarray(from, at + 1));
      if (this.close()) return true;
      from = at + 1;
    }
    // The last bytes may begin a header that the next chunk completes.
    const held = Math.max(from, data.length - (HEADER.length - 1));
    this.take(data.subarray(from, held));
    this.tail = data.subarray(held);
    return false;
  }

  /** The output ended: the last section is complete. */
  finish(): void {
    if (this.tail) this.take(this.tail);
    if (this.index >= 0) this.close();
  }

  private take(bytes: Buffer): void {
    if (this.index < this.first || this.index >= this.end || this.bytes > DIFF_PATCH_BYTES_MAX + HEADER_ROOM) return;
    this.bytes += bytes.length;
    if (this.bytes > DIFF_PATCH_BYTES_MAX + HEADER_ROOM) this.parts = [];
    else this.parts.push(bytes);
  }

  private close(): boolean {
    if (this.index >= this.first && this.index < this.end) this.kept.push(this.bytes > DIFF_PATCH_BYTES_MAX + HEADER_ROOM ? null : Buffer.concat(this.parts));
    this.parts = [];
    this.bytes = 0;
    this.index++;
    return this.index >= this.end;
  }
}

/** A section's hunks (from its first "@@" line, as `git diff` prints them after the header), or null over the patch cap. */
export function sectionPatch(section: Buffer | null): string | null {
  if (section === null) return null;
  const at = section.indexOf("\n@@");
  if (at === -1) return "";
  return section.length - (at + 1) > DIFF_PATCH_BYTES_MAX ? null : section.toString("utf8", at + 1);
}
