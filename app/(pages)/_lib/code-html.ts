import type { Segment } from "./highlight";
import { pairedParts, type LineParts } from "./word-diff";

// Diffs and files are the bulk of their pages, and the App Router sends every server-rendered
// element twice: as HTML and again in the inline RSC payload, where an element costs about four
// times its HTML. So their lines are one HTML string each block, made here and inserted once
// (dangerouslySetInnerHTML): the payload carries the string, which is no bigger than the HTML.
// The markup is terse on purpose: one <p> a line (its end tag is optional), unquoted attributes
// whose values are only digits and letters made here, the +/- marks and a context line's old
// number drawn by CSS (public/style.css, `.diff`). Text is the only input, and it is escaped.

/** Text as HTML text content: `&` and `<` are the only characters that start markup there. */
export const escapeText = (text: string): string => text.replace(/[&<]/g, (c) => (c === "&" ? "&amp;" : "&lt;"));

export interface DiffLine {
  kind: "context" | "add" | "del";
  oldLine: number | null;
  newLine: number | null;
  text: string;
}

/** Where a comment on this line anchors: the new side unless the line exists only on the old one. */
export const lineAnchor = (line: DiffLine): { side: "old" | "new"; line: number } =>
  line.kind === "del" ? { side: "old", line: line.oldLine! } : { side: "new", line: line.newLine! };

/**
 * A diff line's id (`f3n12`: file 3 of the diff, new line 12; `f3o4`: old line 4), which is also
 * what a comment link names in `?c=`.
 */
export const lineId = (fileIndex: number, side: "old" | "new", line: number) =>
  `f${fileIndex}${side === "old" ? "o" : "n"}${line}`;

/** `?c=` of a comment link, read back: the file's index in the diff, the side and the line. */
export function parseLineId(value: unknown): { fileIndex: number; side: "old" | "new"; line: number } | null {
  const match = typeof value === "string" ? /^f(\d{1,6})([on])(\d{1,9})$/.exec(value) : null;
  return match ? { fileIndex: Number(match[1]), side: match[2] === "o" ? "old" : "new", line: Number(match[3]) } : null;
}

/**
 * An attribute value: unquoted when it has nothing that ends or escapes one, else quoted with `&`
 * and `"` escaped (all that ends a quoted value or starts a reference in it).
 */
export const attribute = (value: string): string =>
  /^[^\s"'=<>`&]+$/.test(value) ? value : `"${value.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`;

const LINE_CLASS = { add: " class=a", del: " class=d", context: "" } as const;

function lineText(line: DiffLine, parts: LineParts | null): string {
  if (!parts) return escapeText(line.text);
  const mark = line.kind === "add" ? "ins" : "del";
  return `${escapeText(parts.before)}<${mark}>${escapeText(parts.changed)}</${mark}>${escapeText(parts.after)}`;
}

/** One run of a hunk's lines, and the anchor of its last line when something goes under it. */
export interface DiffBlock {
  html: string;
  after: { side: "old" | "new"; line: number } | null;
}

/**
 * A file's hunks as HTML blocks, cut after each line `breakAfter` names (a thread or the comment
 * form goes there). Each line's number on its anchor side is a link (in the tab order: the
 * keyboard reaches a line as a mouse does) to `href(id)` (the comment form) or else to the line
 * itself; each hunk's header starts with `expand`'s link (more context around the changes) when given.
 */
export function diffBlocks(
  hunks: Array<{ header: string; lines: DiffLine[] }>,
  fileIndex: number,
  {
    href,
    expand,
    breakAfter,
  }: {
    href?: (id: string) => string;
    expand?: string;
    breakAfter: (anchor: { side: "old" | "new"; line: number }) => boolean;
  },
): DiffBlock[] {
  const blocks: DiffBlock[] = [];
  let html = "";
  for (const hunk of hunks) {
    html += `<p class=h>${expand ?? ""}${escapeText(hunk.header)}`;
    const parts = pairedParts(hunk.lines);
    hunk.lines.forEach((line, l) => {
      const anchor = lineAnchor(line);
      const id = lineId(fileIndex, anchor.side, anchor.line);
      const old = line.kind === "context" ? ` data-o=${line.oldLine}` : "";
      html += `<p${LINE_CLASS[line.kind]}${old}><a id=${id} href=${attribute(href ? href(id) : `#${id}`)}>${anchor.line}</a>${lineText(line, parts[l])}`;
      if (breakAfter(anchor)) {
        blocks.push({ html, after: anchor });
        html = "";
      }
    });
  }
  if (html !== "") blocks.push({ html, after: null });
  return blocks;
}

/** A file's lines, numbered with `#L<n>` anchors (out of the tab order), highlighted when `segments` are given. */
export function numberedLinesHtml(lines: string[], first: number, segments: Segment[][] | null): string {
  let html = "";
  lines.forEach((text, index) => {
    const n = first + index;
    const code = segments ? segmentsHtml(segments[n - 1] ?? []) : escapeText(text);
    html += `<p><a id=L${n} href=#L${n} tabindex=-1>${n}</a>${code}`;
  });
  return html;
}

const segmentsHtml = (segments: Segment[]) =>
  segments
    .map((s) => (s.className ? `<span class=${s.className}>${escapeText(s.text)}</span>` : escapeText(s.text)))
    .join("");
