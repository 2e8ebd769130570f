import { attribute, escapeText } from "./code-html";

// A file of a diff as HTML strings (see code-html.ts for why): as React elements, the summary,
// the "Viewed" form and the box around the lines cost more in the page's inline payload than the
// lines of a small file, and a change page shows 50 files.

export interface DiffFileHead {
  path: string;
  /** The old path of a renamed file. */
  previousPath?: string | null;
  status: "added" | "modified" | "deleted" | "renamed";
  binary: boolean;
  additions: number;
  deletions: number;
  truncated: boolean;
  hunks: unknown[];
}

/** The id of the page's one form that the files' "Viewed" buttons submit (`<button form>`). */
export const VIEWED_FORM = "viewed";

/** What a "Viewed" button sends as `file`: the file's index in the diff, the mark it sets, its path. */
export const viewedValue = (index: number, viewed: boolean, path: string) => `${index} ${viewed} ${path}`;

/** `file` of a "Viewed" button, read back; null when it is not one. */
export function parseViewedValue(value: string): { index: number; viewed: boolean; path: string } | null {
  const match = /^(\d{1,6}) (true|false) ([^]+)$/.exec(value);
  return match ? { index: Number(match[1]), viewed: match[2] === "true", path: match[3] } : null;
}

/** A file's path (a renamed one as "old → new"), status, a "viewed" badge and its +/- counts: the inside of its <summary>. */
export function summaryHtml(
  file: Pick<DiffFileHead, "path" | "previousPath" | "status" | "additions" | "deletions">,
  viewed: boolean,
): string {
  const name =
    file.status === "renamed" && file.previousPath
      ? `${escapeText(file.previousPath)} <span aria-label="renamed to">→</span> ${escapeText(file.path)}`
      : escapeText(file.path);
  return `${name} <span class=badge>${file.status}</span>${viewed ? " <span class=badge>viewed</span>" : ""} <span class=muted>+${file.additions} −${file.deletions}</span>`;
}

/**
 * A file's "Viewed" mark: a button of the page's one VIEWED_FORM (no script needed) that reads as
 * a check box (the box is drawn by CSS); pressing it sets the other mark.
 */
export const viewedButtonHtml = (index: number, path: string, viewed: boolean): string =>
  `<button form=${VIEWED_FORM} name=file value=${attribute(viewedValue(index, !viewed, path))} class=viewed-toggle aria-pressed=${viewed} aria-label=${attribute(`Viewed ${path}`)}>Viewed</button>`;

/** What a file shows above its lines: binary, or no text changes. */
export function fileNoticeHtml(file: DiffFileHead): string {
  if (file.binary) return "<p class=notice>Binary file; not shown.</p>";
  return file.hunks.length === 0 ? "<p class=muted>No text changes.</p>" : "";
}

/** Said under a file whose diff the server cut. */
export const TRUNCATED = "This file's diff is long; the rest is not shown here. Clone the project to read it whole.";

/** The box a file's lines scroll in (a tab stop, so the keyboard can scroll it), open: the lines and `</div></div>` follow. */
export const linesBoxHtml = (path: string) =>
  `<div class="scroll code diff" role=group aria-label=${attribute(`Diff of ${path}`)} tabindex=0><div class=lines>`;

/**
 * A hunk header's link to the page with `more` lines of context above and below each change of a
 * file (a GET: no script needed; the server reads the file's diff again with the wider context).
 */
export const expandLinkHtml = (href: string, more: number, path: string): string =>
  `<a href=${attribute(href)} class=expand aria-label=${attribute(`${more} more lines of context in ${path}`)}>↕ ${more} more lines</a>`;

/**
 * A whole file of a diff in its box (its "Viewed" button when `markable`, drawn inside the file's
 * header by CSS, then a <details> folded when viewed), its lines being `linesHtml`: for a file
 * with nothing between its lines.
 */
export function diffFileHtml(
  file: DiffFileHead,
  index: number,
  linesHtml: string,
  { viewed, markable }: { viewed: boolean; markable: boolean },
): string {
  return (
    "<div class=file-box>" +
    (markable ? viewedButtonHtml(index, file.path, viewed) : "") +
    `<details class=file id=file-${index}${viewed ? "" : " open"}><summary>${summaryHtml(file, viewed)}</summary>${fileNoticeHtml(file)}` +
    (linesHtml === "" ? "" : `${linesBoxHtml(file.path)}${linesHtml}</div></div>`) +
    `${file.truncated ? `<p class=notice>${TRUNCATED}</p>` : ""}</details></div>`
  );
}

/** The line picker (a GET form to `action`: file `f`, side `s`, line `l`, the page's `page`) for these files of the page. */
export function linePickerHtml(files: Array<{ path: string; index: number }>, page: number, action: string): string {
  const options = files.map((file) => `<option value=${file.index}>${escapeText(file.path)}`).join("");
  return (
    `<form method=get action=${attribute(action)} class="row line-picker" aria-label="Comment on a line"><input type=hidden name=page value=${page}>` +
    `<div><label for=pick-file>File</label><select id=pick-file name=f>${options}</select></div>` +
    "<div><label for=pick-side>Side</label><select id=pick-side name=s><option value=new selected>new line<option value=old>old line</select></div>" +
    "<div><label for=pick-line>Line number</label><input id=pick-line name=l type=number min=1 required></div>" +
    "<div><button type=submit>Open comment form</button></div></form>"
  );
}
