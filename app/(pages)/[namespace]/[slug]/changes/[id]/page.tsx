import { ChangeStory } from "./change-story";
import { EvalRuns } from "./eval-runs";
import { expandLink, expansionQuery, expansionsOf } from "./expand";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DiffFiles, LinePicker, openLine, shownAnchors } from "../../../../_components/diff-file";
import { DiffFileList } from "../../../../_components/diff-file-list";
import { VIEWED_FORM } from "../../../../_lib/diff-html";
import { Flash } from "../../../../_components/flash";
import { Pager } from "../../../../_components/pager";
import { ProjectHeader } from "../../../../_components/project-header";
import { anchorKey, threadsOf, ThreadView, type Thread } from "../../../../_components/thread";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { read } from "../../../../_lib/session";
import { pageNumber } from "../../../../_lib/tree";
import {
  addComment,
  evaluateChange,
  markViewed,
  mergeChange,
  queueChange,
  rejectChange,
  unqueueChange,
  resolveConflict,
  revertChange,
  setThreadResolved,
  submitReview,
} from "./actions";
import { RelativeTime } from "../../../../_components/relative-time";
import { CommitLink } from "../../../../_components/commit-link";
import { projectTitle, segment } from "../../../../_lib/title";
import { AuthorOf, UserLink, agentActors } from "../../../../_components/person";
import { preloadNames } from "../../../../_lib/people";
import { changeOfRoute } from "../../../../_lib/change-ref";

export const generateMetadata = projectTitle<ProjectRouteParams & { id: string }>((r) =>
  /^\d+$/.test(segment(r.id)) ? `Change !${segment(r.id)}` : `Change ${segment(r.id).slice(0, 8)}`,
);

type Props = {
  params: Promise<ProjectRouteParams & { id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const CLOSED = ["merged", "rejected"];
const LOG_TAIL_LINES = 200;
const actions = { addComment, setThreadResolved };

export default async function ChangePage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const loaded = await loadProject(route);
  const { api, base, project, identity } = loaded;
  const page = pageNumber(query.page);
  const expansions = expansionsOf(query);
  // Addressed by its number in the project (`changes/12`) or by its id.
  const { change, eval: evaluation, evalRuns, queue } = await read(() => changeOfRoute(api, loaded, route.id));
  if (change.projectId !== project.id) notFound();
  const id = change.id;
  const signedIn = identity.kind === "user";
  const canReview = signedIn && atLeast(loaded.level, "write");
  const mergeable = canReview && !CLOSED.includes(change.status);
  const [diff, { reviews }, { comments }, { blockers }, commits, { paths: viewedPaths }] = await Promise.all([
    api.changes.diff({ id, page, expand: [...expansions].map(([file, context]) => ({ file, context })) }),
    api.reviews.list({ id }),
    api.comments.list({ id }),
    // The merge's own gates (policy approvals and protection included), asked only where the box shows.
    mergeable ? api.changes.mergeBlockers({ id }) : { blockers: [] },
    // Only the commits are shown: one file of the comparison's diff is the least it computes.
    api.code
      .compare({ namespace: loaded.namespace, slug: loaded.slug, base: change.baseSha, head: change.tipSha, limit: 1 })
      .then((comparison) => comparison.commits)
      .catch(() => null),
    api.changes.viewedFiles({ id }),
  ]);
  const viewed = new Set(viewedPaths);
  // The last lines of each background run's log (the fast evaluators write none).
  const runLogs = new Map(
    await Promise.all(
      evalRuns
        .filter((run) => run.logBytes > 0)
        .map(
          async (run) =>
            [run.id, (await api.changes.evaluationLog({ id, runId: run.id, tail: LOG_TAIL_LINES })).log] as const,
        ),
    ),
  );

  await preloadNames(agentActors([change, ...comments]));
  const self = `${base}/changes/${change.id}`;
  const pageUrl = `${self}${expansionQuery(page, expansions)}`;
  const open = openLine(query);

  const threads = threadsOf(comments);
  const shown = shownAnchors(diff.files);
  const onLines = new Map<string, Thread[]>();
  const elsewhere: Thread[] = [];
  for (const thread of threads) {
    const { file, line, side } = thread.root;
    const key = file && line !== null ? anchorKey(file, side ?? "new", line) : null;
    if (key && shown.has(key)) onLines.set(key, [...(onLines.get(key) ?? []), thread]);
    else elsewhere.push(thread);
  }
  const approvals = reviews.filter((review) => review.verdict === "approve" && !review.dismissed).length;
  const pages = Math.max(1, Math.ceil(diff.totalFiles / diff.pageSize));
  const conflictId = typeof query.conflict === "string" ? query.conflict : undefined;
  // The page's sections in their order (their headings' ids), with how many things some hold.
  const sections: Array<[string, string, number?]> = [
    ["description", "Description"],
    ["commits", "Commits"],
    ["evaluation", "Evaluation"],
    ["files", "Files", diff.totalFiles],
    ["reviews", "Review", reviews.length],
    ["conversation", "Conversation", elsewhere.length],
  ];

  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="changes"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>
        {change.title ?? "Untitled change"} <span className="muted">!{change.number}</span>
      </h1>
      <p>
        <span className="badge">{change.status}</span> by <AuthorOf author={change.author} agentId={change.agentId} />
        {change.workspace && (
          <>
            {" "}
            from workspace <code>{change.workspace}</code>
          </>
        )}{" "}
        · base <CommitLink base={base} sha={change.baseSha} /> · tip <CommitLink base={base} sha={change.tipSha} />
        {change.mergedSha && (
          <>
            {" "}
            · merged as <CommitLink base={base} sha={change.mergedSha} />
          </>
        )}
      </p>
      {queue && (
        <p className="notice" id="queue-state">
          In the <Link href={`${base}/queue`}>merge queue</Link>: position {queue.position}, {queue.state}, queued{" "}
          <RelativeTime iso={queue.enqueuedAt} />.
        </p>
      )}
      <Flash query={query} />
      <nav aria-label="Sections of this change" className="tabs">
        <ul>
          {sections.map(([id, name, count]) => (
            <li key={id}>
              <a href={`#${id}`}>
                {name}
                {count !== undefined && <span className="muted"> {count}</span>}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <ChangeStory base={base} commits={commits} />

      <section aria-labelledby="evaluation">
        <h2 id="evaluation">Evaluation</h2>
        {evaluation ? (
          <p>
            Round {evaluation.round}: <strong>{evaluation.verdict ?? "in progress"}</strong> — {evaluation.summary}
          </p>
        ) : (
          <p>Not evaluated.</p>
        )}
        {evalRuns.length > 0 && <EvalRuns base={base} changeId={change.id} runs={evalRuns} logs={runLogs} />}
      </section>

      <section aria-labelledby="files">
        <h2 id="files">
          Files changed <span className="muted">({diff.totalFiles})</span>
        </h2>
        <Pager page={page} pages={pages} label="Diff pages" href={(n) => `${self}?page=${n}`} />
        <div className="diff-layout">
          <DiffFileList
            files={diff.files}
            firstIndex={(page - 1) * diff.pageSize}
            viewed={signedIn ? viewed : undefined}
          />
          <div className="diff-main">
            {signedIn && (
              <p className="muted">
                {diff.files.filter((file) => viewed.has(file.path)).length} of {diff.files.length} files on this page
                viewed.
              </p>
            )}
            {signedIn && (
              // The files' "Viewed" buttons submit this form (<button form>): one form, not one a file.
              <form id={VIEWED_FORM} action={markViewed}>
                <input type="hidden" name="changeId" value={change.id} />
                <input type="hidden" name="back" value={pageUrl} />
              </form>
            )}
            <DiffFiles
              files={diff.files}
              firstIndex={(page - 1) * diff.pageSize}
              threads={onLines}
              pageUrl={pageUrl}
              open={open}
              canComment={signedIn}
              changeId={change.id}
              tipSha={change.tipSha}
              actions={actions}
              viewed={viewed}
              markable={signedIn}
              expand={expandLink(page, expansions)}
            />
            {signedIn && (
              <LinePicker files={diff.files} firstIndex={(page - 1) * diff.pageSize} page={page} action={self} />
            )}
          </div>
        </div>
        <Pager page={page} pages={pages} label="Diff pages, bottom" href={(n) => `${self}?page=${n}`} />
      </section>

      <section aria-labelledby="reviews">
        <h2 id="reviews">Reviews</h2>
        <p>
          {approvals} current approval{approvals === 1 ? "" : "s"}.
        </p>
        {reviews.length > 0 && (
          <ul>
            {reviews.map((review) => (
              <li key={review.id}>
                <strong>
                  {review.reviewer.username ? <UserLink username={review.reviewer.username} /> : "a deleted user"}
                </strong>
                : {review.verdict.replace("_", " ")}
                {review.dismissed && <span className="muted"> (dismissed)</span>}
                {review.comment && <> — {review.comment}</>}
              </li>
            ))}
          </ul>
        )}
        {canReview && !CLOSED.includes(change.status) && (
          <form action={submitReview} aria-labelledby="review-form">
            <h3 id="review-form">Your review</h3>
            <input type="hidden" name="changeId" value={change.id} />
            <input type="hidden" name="back" value={pageUrl} />
            <fieldset>
              <legend>Verdict</legend>
              <input type="radio" id="verdict-approve" name="verdict" value="approve" />{" "}
              <label className="check" htmlFor="verdict-approve">
                Approve
              </label>{" "}
              <input type="radio" id="verdict-request" name="verdict" value="request_changes" />{" "}
              <label className="check" htmlFor="verdict-request">
                Request changes
              </label>{" "}
              <input type="radio" id="verdict-comment" name="verdict" value="comment" defaultChecked />{" "}
              <label className="check" htmlFor="verdict-comment">
                Comment
              </label>
            </fieldset>
            <label htmlFor="review-comment">Comment</label>
            <textarea id="review-comment" name="comment" />
            <button type="submit" className="primary">
              Submit review
            </button>
          </form>
        )}
      </section>

      {mergeable && (
        <section aria-labelledby="merge">
          <h2 id="merge">Merge</h2>
          {blockers.length === 0 ? (
            <p className="blockers ready">
              Branch protection, the required approvals and a fresh base allow this merge now. A conflict with the
              default branch shows when it is tried.
            </p>
          ) : (
            <div className="blockers">
              <p>
                <strong>What blocks the merge now:</strong>
              </p>
              <ul aria-label="Merge blockers">
                {blockers.map((blocker) => (
                  <li key={blocker}>{blocker}</li>
                ))}
              </ul>
            </div>
          )}
          <div className="row">
            <form action={mergeChange}>
              <input type="hidden" name="changeId" value={change.id} />
              <input type="hidden" name="back" value={pageUrl} />
              <label htmlFor="merge-strategy">Strategy</label>
              <select id="merge-strategy" name="strategy" defaultValue="merge">
                <option value="merge">merge commit</option>
                <option value="squash">squash</option>
              </select>{" "}
              <button type="submit" className="primary" disabled={blockers.length > 0}>
                Merge
              </button>{" "}
              <button type="submit" formAction={queueChange} disabled={queue !== null}>
                Merge when ready
              </button>
            </form>
            {queue && (
              <form action={unqueueChange}>
                <input type="hidden" name="changeId" value={change.id} />
                <input type="hidden" name="back" value={pageUrl} />
                <button type="submit">Leave the queue</button>
              </form>
            )}
            <form action={evaluateChange}>
              <input type="hidden" name="changeId" value={change.id} />
              <input type="hidden" name="back" value={pageUrl} />
              <button type="submit">Re-evaluate</button>
            </form>
            <form action={rejectChange}>
              <input type="hidden" name="changeId" value={change.id} />
              <input type="hidden" name="back" value={pageUrl} />
              <button type="submit" className="danger">
                Reject
              </button>
            </form>
          </div>
          {conflictId && (
            <form action={resolveConflict} aria-labelledby="resolve-conflict">
              <h3 id="resolve-conflict">Resolve the conflict</h3>
              <input type="hidden" name="conflictId" value={conflictId} />
              <input type="hidden" name="back" value={pageUrl} />
              <fieldset>
                <legend>Keep, for every conflicting file</legend>
                <input type="radio" id="keep-project" name="strategy" value="accept-project" defaultChecked />{" "}
                <label className="check" htmlFor="keep-project">
                  the default branch&apos;s version
                </label>{" "}
                <input type="radio" id="keep-workspace" name="strategy" value="accept-workspace" />{" "}
                <label className="check" htmlFor="keep-workspace">
                  this change&apos;s version
                </label>
              </fieldset>
              <button type="submit">Resolve and merge</button>
            </form>
          )}
        </section>
      )}

      {canReview && change.status === "merged" && !change.revertedSha && (
        <section aria-labelledby="revert">
          <h2 id="revert">Revert</h2>
          <p className="muted">Adds one commit to the default branch that undoes this change.</p>
          <form action={revertChange}>
            <input type="hidden" name="changeId" value={change.id} />
            <input type="hidden" name="back" value={pageUrl} />
            <button type="submit" className="danger">
              Revert this change
            </button>
          </form>
        </section>
      )}
      {change.revertedSha && (
        <p className="notice">
          Reverted as <CommitLink base={base} sha={change.revertedSha} /> <RelativeTime iso={change.revertedAt} />.
        </p>
      )}

      <section aria-labelledby="conversation">
        <h2 id="conversation">Conversation</h2>
        {elsewhere.length === 0 && <p className="muted">No other comments.</p>}
        {elsewhere.map((thread) => (
          <ThreadView
            key={thread.root.id}
            thread={thread}
            changeId={change.id}
            back={pageUrl}
            canAct={signedIn}
            actions={actions}
            context={{ base }}
          />
        ))}
        {signedIn ? (
          <form action={addComment}>
            <input type="hidden" name="changeId" value={change.id} />
            <input type="hidden" name="back" value={`${pageUrl}#conversation`} />
            <label htmlFor="new-comment">Comment</label>
            <textarea id="new-comment" name="body" required />
            <button type="submit">Comment</button>
          </form>
        ) : (
          <p>
            <Link href="/login">Sign in</Link> to comment.
          </p>
        )}
      </section>
    </>
  );
}
