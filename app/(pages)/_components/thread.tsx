import type { MarkdownContext } from "../_lib/markdown";
import { Markdown } from "./markdown";
import { RelativeTime } from "./relative-time";
import { AuthorOf } from "./person";

export interface ChangeComment {
  id: string;
  body: string;
  file: string | null;
  line: number | null;
  side: "old" | "new" | null;
  parentCommentId: string | null;
  author: { username: string | null } | null;
  agentId: string | null;
  resolved: boolean;
  createdAt: string;
}

export interface Thread {
  root: ChangeComment;
  replies: ChangeComment[];
}

/** Roots with their replies, oldest first (the API lists comments oldest first). */
export function threadsOf(comments: ChangeComment[]): Thread[] {
  const threads = new Map<string, Thread>();
  for (const comment of comments) {
    if (comment.parentCommentId === null) threads.set(comment.id, { root: comment, replies: [] });
  }
  for (const comment of comments) {
    if (comment.parentCommentId !== null) threads.get(comment.parentCommentId)?.replies.push(comment);
  }
  return [...threads.values()];
}

export const anchorKey = (file: string, side: string, line: number) => `${file}\u0000${side}\u0000${line}`;

/** A comment's author as plain text, for labels and a folded thread's <summary> (no link may nest there): an agent's comment is its owner's (the API records the owner as author). */
const who = (comment: ChangeComment) =>
  comment.agentId
    ? `an agent for ${comment.author?.username ?? "a deleted user"}`
    : (comment.author?.username ?? "a deleted user");

type Actions = { addComment: (form: FormData) => Promise<void>; setThreadResolved: (form: FormData) => Promise<void> };

/** One thread; a resolved one is folded to a line that opens it (<details>, no script). */
export function ThreadView(props: {
  thread: Thread;
  changeId: string;
  back: string;
  canAct: boolean;
  actions: Actions;
  context?: MarkdownContext;
}) {
  const { root, replies } = props.thread;
  if (!root.resolved) return <ThreadBody {...props} />;
  return (
    <details className="thread resolved">
      <summary>
        Resolved thread by {who(root)}
        {root.file && ` on ${root.file}${root.line !== null ? ` line ${root.line}` : ""}`} ({replies.length + 1} comment
        {replies.length === 0 ? "" : "s"})
      </summary>
      <ThreadBody {...props} />
    </details>
  );
}

/** A thread's comments, and for signed-in callers a reply form and a resolve/reopen button. */
function ThreadBody({
  thread,
  changeId,
  back,
  canAct,
  actions,
  context,
}: {
  thread: Thread;
  changeId: string;
  back: string;
  canAct: boolean;
  actions: Actions;
  context?: MarkdownContext;
}) {
  const { root } = thread;
  return (
    <article
      className={`thread${root.resolved ? " resolved" : ""}`}
      id={`comment-${root.id}`}
      aria-label={`Thread by ${who(root)}`}
    >
      {root.file && (
        <p className="muted">
          On <code>{root.file}</code>
          {root.line !== null && ` line ${root.line} (${root.side ?? "new"})`}
        </p>
      )}
      {[root, ...thread.replies].map((comment) => (
        <div key={comment.id}>
          <p>
            <strong>
              <AuthorOf author={comment.author} agentId={comment.agentId} />
            </strong>{" "}
            <RelativeTime iso={comment.createdAt} />
          </p>
          <Markdown source={comment.body} context={context} />
        </div>
      ))}
      {canAct && (
        <div className="row">
          <form action={actions.addComment}>
            <input type="hidden" name="changeId" value={changeId} />
            <input type="hidden" name="parentCommentId" value={root.id} />
            <input type="hidden" name="back" value={`${back}#comment-${root.id}`} />
            <label htmlFor={`reply-${root.id}`}>Reply</label>
            <textarea id={`reply-${root.id}`} name="body" required rows={2} />
            <button type="submit">Reply</button>
          </form>
          <form action={actions.setThreadResolved}>
            <input type="hidden" name="changeId" value={changeId} />
            <input type="hidden" name="commentId" value={root.id} />
            <input type="hidden" name="resolved" value={root.resolved ? "false" : "true"} />
            <input type="hidden" name="back" value={`${back}#comment-${root.id}`} />
            <button type="submit">{root.resolved ? "Reopen thread" : "Resolve thread"}</button>
          </form>
        </div>
      )}
    </article>
  );
}
