"use server";

import { backTo, field, optionalField } from "../../../../_lib/form";
import { write } from "../../../../_lib/session";
import { parseViewedValue } from "../../../../_lib/diff-html";

// The change page's forms. Each calls the same procedure as its /api route and returns to the page.

export async function submitReview(form: FormData) {
  const id = field(form, "changeId");
  const verdict = field(form, "verdict") as "approve" | "request_changes" | "comment";
  await write(backTo(form), (api) => api.reviews.submit({ id, verdict, comment: optionalField(form, "comment") }));
}

export async function mergeChange(form: FormData) {
  const id = field(form, "changeId");
  await write(backTo(form), (api) =>
    api.changes.merge({
      id,
      strategy: field(form, "strategy") === "squash" ? "squash" : "merge",
      force: field(form, "force") === "true",
    }),
  );
}

/** "Merge when ready": the merge queue lands it once nothing blocks it. */
export async function queueChange(form: FormData) {
  const id = field(form, "changeId");
  await write(backTo(form), (api) =>
    api.changes.queue({ id, strategy: field(form, "strategy") === "squash" ? "squash" : "merge" }),
  );
}

export async function unqueueChange(form: FormData) {
  await write(backTo(form), (api) => api.changes.unqueue({ id: field(form, "changeId") }));
}

export async function revertChange(form: FormData) {
  await write(backTo(form), (api) => api.changes.revert({ id: field(form, "changeId") }));
}

export async function rejectChange(form: FormData) {
  await write(backTo(form), (api) => api.changes.reject({ id: field(form, "changeId") }));
}

export async function evaluateChange(form: FormData) {
  await write(backTo(form), (api) => api.changes.evaluate({ id: field(form, "changeId") }));
}

/** A comment: general, anchored on a diff line (file, line, side), or a reply to a thread. */
export async function addComment(form: FormData) {
  const id = field(form, "changeId");
  const line = Number(field(form, "line"));
  const side = field(form, "side");
  const back = backTo(form);
  // Refused: back to the open form; done: the page without the form's query, at the new comment's line.
  await write(
    back,
    (api) =>
      api.comments.create({
        id,
        body: field(form, "body"),
        file: optionalField(form, "file"),
        line: Number.isInteger(line) && line > 0 ? line : undefined,
        side: side === "old" || side === "new" ? side : undefined,
        commitSha: optionalField(form, "commitSha"),
        parentCommentId: optionalField(form, "parentCommentId"),
      }),
    back.replace(/&c=[^#]*/, ""),
  );
}

export async function setThreadResolved(form: FormData) {
  const input = { id: field(form, "changeId"), commentId: field(form, "commentId") };
  await write(backTo(form), (api) =>
    field(form, "resolved") === "true" ? api.comments.resolve(input) : api.comments.unresolve(input),
  );
}

export async function resolveConflict(form: FormData) {
  await write(backTo(form), (api) =>
    api.conflicts.resolve({ id: field(form, "conflictId"), strategy: field(form, "strategy") }),
  );
}

/**
 * Marks a file of the change viewed (folded on the next load) or not, for the signed-in reader:
 * the pressed button's `file` names the file, the mark and the file's place (the page returns there).
 */
export async function markViewed(form: FormData) {
  const mark = parseViewedValue(field(form, "file"));
  const back = backTo(form);
  await write(mark ? `${back}#file-${mark.index}` : back, (api) =>
    api.changes.setViewed({ id: field(form, "changeId"), path: mark?.path ?? "", viewed: mark?.viewed ?? true }),
  );
}
