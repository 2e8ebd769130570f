import { Fragment } from "react";
import { pairedParts, type LineParts } from "../_lib/word-diff";
import { anchorKey, ThreadView, type Thread } from "./thread";

export interface DiffLine {
  kind: "context" | "add" | "del";
  oldLine: number | null;
  newLine: number | null;
  text: string;
}

export interface DiffFileData {
  path: string;
  /** The old path of a renamed file. */
  previousPath?: string | null;
  status: "added" | "modified" | "deleted" | "renamed";
  binary: boolean;
  additions: number;
  deletions: number;
  truncated: boolean;
  hunks: Array<{ header: string; lines: DiffLine[] }>;
}

/** Where a comment on this line anchors: the new side unless the line exists only on the old one. */
export const lineAnchor = (line: DiffLine): { side: "old" | "new"; line: number } => (line.kind === "del" ? { side: "old", line: line.oldLine! } : { side: "new", line: line.newLine! });

/** Every anchor a page of files shows, so threads anchored elsewhere can be listed apart. */
export function shownAnchors(files: DiffFileData[]): Set<string> {
  const keys = new Set<string>();
  for (const file of files) for (const hunk of file.hunks) for (const line of hunk.lines) {
    const anchor = lineAnchor(line);
    keys.add(anchorKey(file.path, anchor.side, anchor.line));
  }
  return keys;
}

const MARK = { add: "+", del: "-", context: " " } as const;
const LABEL = { add: "added", del: "removed", context: "unchanged" } as const;

interface Props {
  file: DiffFileData;
  index: number;
  threads: Map<string, Thread[]>;
  /** The page's address (with its ?page=), for links that open the comment form on a line. */
  pageUrl: string;
  /** The line whose comment form is open. */
  open?: { file: string; side: string; line: number };
  canComment: boolean;
  changeId: string;
  tipSha: string;
  actions: Parameters<typeof ThreadView>[0]["actions"];
  /** Marked viewed by the reader: shown folded. */
  viewed?: boolean;
}

/** A diff line's text, its changed words inside <ins>/<del> when it rewrites a paired line. */
function LineText({ line, parts }: { line: DiffLine; parts: LineParts | null }) {
  if (!parts) return <>{line.text}</>;
  const Mark = line.kind === "add" ? "ins" : "del";
  return (
    <>
      {parts.before}
      <Mark>{parts.changed}</Mark>
      {parts.after}
    </>
  );
}

/**
 * One file of a unified diff, collapsible (<details>): +/- marks in their own column (not colour
 * alone), changed words marked, threads under their lines. The line numbers are the links that
 * open a comment form on a line, kept out of the tab order (a change has thousands); the form
 * under the file reaches any line from the keyboard.
 */
export function DiffFile({ file, index, threads, pageUrl, open, canComment, changeId, tipSha, actions, viewed = false }: Props) {
  const fileId = `file-${index}`;
  const commentHref = (side: string, line: number, rowId: string) => `${pageUrl}&comment=${encodeURIComponent(file.path)}&side=${side}&line=${line}#${rowId}`;
  return (
    <details className="file" id={fileId} open={!viewed}>
      <summary>
        <FileName file={file} /> <span className="badge">{file.status}</span>{" "}
        {viewed && <span className="badge">viewed</span>}{" "}
        <span className="muted">
          +{file.additions} −{file.deletions}
        </span>
      </summary>
      {file.binary && <p className="notice">Binary file; not shown.</p>}
      {!file.binary && file.hunks.length === 0 && <p className="muted">No text changes.</p>}
      {file.hunks.length > 0 && (
        <div className="scroll">
          <table className="code" aria-label={`Diff of ${file.path}`}>
            <thead>
              <tr>
                <th scope="col">Old line</th>
                <th scope="col">New line</th>
                <th scope="col">Change</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {file.hunks.map((hunk, h) => {
                const parts = pairedParts(hunk.lines);
                return (
                  <Fragment key={h}>
                    <tr className="hunk">
                      <td colSpan={4}>{hunk.header}</td>
                    </tr>
                    {hunk.lines.map((line, l) => {
                      const anchor = lineAnchor(line);
                      const key = anchorKey(file.path, anchor.side, anchor.line);
                      const rowId = `${fileId}-${anchor.side}-${anchor.line}`;
                      const isOpen = open && open.file === file.path && open.side === anchor.side && open.line === anchor.line;
                      const here = threads.get(key) ?? [];
                      const number = (side: "old" | "new", n: number | null) =>
                        canComment && n !== null && anchor.side === side ? (
                          <a href={commentHref(side, n, rowId)} tabIndex={-1} aria-label={`Comment on ${side} line ${n} of ${file.path}`}>
                            {n}
                          </a>
                        ) : (
                          (n ?? "")
                        );
                      return (
                        <Fragment key={l}>
                          <tr className={line.kind} id={rowId}>
                            <td className="num">{number("old", line.oldLine)}</td>
                            <td className="num">{number("new", line.newLine)}</td>
                            <td className="mark" aria-label={LABEL[line.kind]}>
                              {line.kind === "add" ? <ins>{MARK.add}</ins> : line.kind === "del" ? <del>{MARK.del}</del> : MARK.context}
                            </td>
                            <td>
                              <LineText line={line} parts={parts[l]} />
                            </td>
                          </tr>
                          {(here.length > 0 || isOpen) && (
                            <tr className="comments">
                              <td colSpan={4}>
                                {here.map((thread) => (
                                  <ThreadView key={thread.root.id} thread={thread} changeId={changeId} back={pageUrl} canAct={canComment} actions={actions} />
                                ))}
                                {isOpen && (
                                  <form action={actions.addComment}>
                                    <input type="hidden" name="changeId" value={changeId} />
                                    <input type="hidden" name="file" value={file.path} />
                                    <input type="hidden" name="side" value={anchor.side} />
                                    <input type="hidden" name="line" value={anchor.line} />
                                    <input type="hidden" name="commitSha" value={tipSha} />
                                    <input type="hidden" name="back" value={commentHref(anchor.side, anchor.line, rowId)} />
                                    <label htmlFor={`${rowId}-body`}>
                                      Comment on line {anchor.line} of {file.path}
                                    </label>
                                    <textarea id={`${rowId}-body`} name="body" required autoFocus />
                                    <button type="submit" className="primary">
                                      Add comment
                                    </button>
                                  </form>
                                )}
                              </td>
                            </tr>
                          )}
                        </Fragment>
                      );
                    })}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {canComment && file.hunks.length > 0 && <LinePicker file={file.path} fileId={fileId} pageUrl={pageUrl} />}
      {file.truncated && <p className="notice">This file&apos;s diff is long; the rest is not shown here. Clone the project to read it whole.</p>}
    </details>
  );
}

/** A file's path; a renamed one as "old → new". */
export function FileName({ file }: { file: Pick<DiffFileData, "path" | "previousPath" | "status"> }) {
  if (file.status !== "renamed" || !file.previousPath) return <>{file.path}</>;
  return (
    <>
      {file.previousPath} <span aria-label="renamed to">→</span> {file.path}
    </>
  );
}

/** A GET form that opens the comment form on a chosen line: the keyboard's way to a line. */
function LinePicker({ file, fileId, pageUrl }: { file: string; fileId: string; pageUrl: string }) {
  const [path, query = ""] = pageUrl.split("?", 2);
  const page = new URLSearchParams(query).get("page") ?? "1";
  return (
    <form method="get" action={path} className="row line-picker">
      <input type="hidden" name="page" value={page} />
      <input type="hidden" name="comment" value={file} />
      <div>
        <label htmlFor={`${fileId}-side`}>Comment on</label>
        <select id={`${fileId}-side`} name="side" defaultValue="new">
          <option value="new">new line</option>
          <option value="old">old line</option>
        </select>
      </div>
      <div>
        <label htmlFor={`${fileId}-line`}>Line number in {file}</label>
        <input id={`${fileId}-line`} name="line" type="number" min={1} required />
      </div>
      <div>
        <button type="submit">Open comment form</button>
      </div>
    </form>
  );
}
