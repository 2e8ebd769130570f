import { Fragment, type ReactElement } from "react";
import { diffBlocks, lineAnchor, lineId, parseLineId, type DiffLine } from "../_lib/code-html";
import {
  diffFileHtml,
  expandLinkHtml,
  linePickerHtml,
  summaryHtml,
  TRUNCATED,
  viewedButtonHtml,
  type DiffFileHead,
} from "../_lib/diff-html";
import { ServerHtml } from "./server-html";
import { anchorKey, ThreadView, type Thread } from "./thread";

export interface DiffFileData extends DiffFileHead {
  hunks: Array<{ header: string; lines: DiffLine[] }>;
}

/** Every anchor a page of files shows, so threads anchored elsewhere can be listed apart. */
export function shownAnchors(files: DiffFileData[]): Set<string> {
  const keys = new Set<string>();
  for (const file of files)
    for (const hunk of file.hunks)
      for (const line of hunk.lines) {
        const anchor = lineAnchor(line);
        keys.add(anchorKey(file.path, anchor.side, anchor.line));
      }
  return keys;
}

/** The line whose comment form is open: `?c=f3n12` (a line's comment link) or the line picker's `f`, `s` and `l`. */
export type OpenLine = { fileIndex: number; side: "old" | "new"; line: number };
export function openLine(query: Record<string, string | string[] | undefined>): OpenLine | undefined {
  const picked =
    typeof query.f === "string" && typeof query.l === "string"
      ? `f${query.f}${query.s === "old" ? "o" : "n"}${query.l}`
      : undefined;
  return parseLineId(query.c) ?? parseLineId(picked) ?? undefined;
}

/** A comment link's address: the page's own query (its ?page=, left out when 1) and `c`. */
function commentHref(pageUrl: string): (id: string) => string {
  const query = new URL(pageUrl, "http://page").searchParams;
  if (query.get("page") === "1") query.delete("page");
  const keep = query.size === 0 ? "" : `${query}&`;
  return (id) => `?${keep}c=${id}`;
}

interface Props {
  /** The files of this page of the diff. */
  files: DiffFileData[];
  /** The first file's place in the whole diff (not the page): line ids and comment links name it. */
  firstIndex: number;
  threads: Map<string, Thread[]>;
  /** The page's address (with its ?page=), for links that open the comment form on a line. */
  pageUrl: string;
  /** The line whose comment form is open. */
  open?: OpenLine;
  canComment: boolean;
  changeId: string;
  tipSha: string;
  actions: Parameters<typeof ThreadView>[0]["actions"];
  /** The paths the reader marked viewed: shown folded. */
  viewed?: Set<string>;
  /** The reader may mark files viewed: each gets a "Viewed" button of the page's VIEWED_FORM. */
  markable?: boolean;
  /** A file's (by its index in the diff) link to more context and how many lines it adds; none when it shows all it may. */
  expand?: (index: number) => { href: string; more: number } | null;
}

const NOTHING_VIEWED = new Set<string>();

/**
 * Files of a unified diff, each collapsible (<details>): their lines are HTML made by diffBlocks
 * (+/- marks, changed words in <ins>/<del>, line numbers as links that open a comment form for
 * those who may comment, hunk headers with a link to more context), threads and the open comment
 * form under their lines.
 * A run of files with nothing between their lines is one HTML string, their <details> included.
 */
export function DiffFiles({ files, firstIndex, viewed = NOTHING_VIEWED, ...rest }: Props) {
  const parts: Array<string | ReactElement> = [];
  files.forEach((file, i) => {
    const part = diffFile({ ...rest, file, index: firstIndex + i, viewed: viewed.has(file.path) });
    const last = parts.at(-1);
    if (typeof part === "string" && typeof last === "string") parts[parts.length - 1] = last + part;
    else parts.push(part);
  });
  return parts.map((part, i) =>
    typeof part === "string" ? <ServerHtml key={i} html={part} /> : <Fragment key={i}>{part}</Fragment>,
  );
}

type FileProps = Omit<Props, "files" | "firstIndex" | "viewed"> & {
  file: DiffFileData;
  index: number;
  viewed: boolean;
};

/** One file: its HTML when nothing goes between its lines, else elements with its threads and the open comment form. */
function diffFile({
  file,
  index,
  threads,
  pageUrl,
  open,
  canComment,
  changeId,
  tipSha,
  actions,
  viewed,
  markable = false,
  expand,
}: FileProps): string | ReactElement {
  const isOpen = (anchor: { side: string; line: number }) =>
    open?.fileIndex === index && open.side === anchor.side && open.line === anchor.line;
  // An added or deleted file shows all its lines already: no context to expand.
  const wider = file.status === "added" || file.status === "deleted" ? null : expand?.(index);
  const blocks = diffBlocks(file.hunks, index, {
    href: canComment ? commentHref(pageUrl) : undefined,
    expand: wider ? expandLinkHtml(wider.href, wider.more, file.path) : undefined,
    breakAfter: (anchor) => threads.has(anchorKey(file.path, anchor.side, anchor.line)) || isOpen(anchor),
  });
  if (blocks.every((block) => block.after === null))
    return diffFileHtml(file, index, blocks[0]?.html ?? "", { viewed, markable });
  return (
    <div className="file-box">
      {markable && <div dangerouslySetInnerHTML={{ __html: viewedButtonHtml(index, file.path, viewed) }} />}
      <details className="file" id={`file-${index}`} open={!viewed}>
        <summary dangerouslySetInnerHTML={{ __html: summaryHtml(file, viewed) }} />
        <div className="scroll code diff" role="group" aria-label={`Diff of ${file.path}`} tabIndex={0}>
          <div className="lines">
            {blocks.map(({ html, after }, b) => (
              <Fragment key={b}>
                <ServerHtml html={html} />
                {after && (
                  <div className="comments">
                    {(threads.get(anchorKey(file.path, after.side, after.line)) ?? []).map((thread) => (
                      <ThreadView
                        key={thread.root.id}
                        thread={thread}
                        changeId={changeId}
                        back={pageUrl}
                        canAct={canComment}
                        actions={actions}
                      />
                    ))}
                    {isOpen(after) && (
                      <CommentForm
                        file={file.path}
                        id={lineId(index, after.side, after.line)}
                        anchor={after}
                        back={`${pageUrl}&c=${lineId(index, after.side, after.line)}`}
                        changeId={changeId}
                        tipSha={tipSha}
                        action={actions.addComment}
                      />
                    )}
                  </div>
                )}
              </Fragment>
            ))}
          </div>
        </div>
        {file.truncated && <p className="notice">{TRUNCATED}</p>}
      </details>
    </div>
  );
}

/** The form a line's comment link opens, under the line; posting it returns to `back`. */
function CommentForm({
  file,
  id,
  anchor,
  back,
  changeId,
  tipSha,
  action,
}: {
  file: string;
  id: string;
  anchor: { side: string; line: number };
  back: string;
  changeId: string;
  tipSha: string;
  action: (form: FormData) => Promise<void>;
}) {
  return (
    <form action={action}>
      <input type="hidden" name="changeId" value={changeId} />
      <input type="hidden" name="file" value={file} />
      <input type="hidden" name="side" value={anchor.side} />
      <input type="hidden" name="line" value={anchor.line} />
      <input type="hidden" name="commitSha" value={tipSha} />
      <input type="hidden" name="back" value={`${back}#${id}`} />
      <label htmlFor={`${id}-body`}>
        Comment on line {anchor.line} of {file}
      </label>
      <textarea id={`${id}-body`} name="body" required autoFocus />
      <button type="submit" className="primary">
        Add comment
      </button>
    </form>
  );
}

/** A GET form that opens the comment form on a line of a file of this page chosen by its number. */
export function LinePicker({
  files,
  firstIndex,
  page,
  action,
}: {
  files: DiffFileData[];
  firstIndex: number;
  page: number;
  action: string;
}) {
  const shown = files
    .map((file, i) => ({ path: file.path, index: firstIndex + i, hunks: file.hunks.length }))
    .filter((file) => file.hunks > 0);
  return shown.length === 0 ? null : <div dangerouslySetInnerHTML={{ __html: linePickerHtml(shown, page, action) }} />;
}
