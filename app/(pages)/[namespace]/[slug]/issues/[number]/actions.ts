"use server";

import { backTo, field } from "../../../../_lib/form";
import { write } from "../../../../_lib/session";

// The issue page's forms that have no form-friendly route; each calls its /api route's procedure.

const issueRef = (form: FormData) => ({
  namespace: field(form, "namespace"),
  slug: field(form, "slug"),
  number: Number(field(form, "number")),
});

export async function commentOnIssue(form: FormData) {
  await write(backTo(form), (api) => api.issues.createComment({ ...issueRef(form), body: field(form, "body") }));
}

/** The whole set of labels: the ticked boxes (`label`) and new ones typed comma-separated (`labels`). */
export async function setIssueLabels(form: FormData) {
  const ticked = form.getAll("label").filter((label): label is string => typeof label === "string");
  const typed = field(form, "labels").split(",");
  const labels = [...new Set([...ticked, ...typed].map((label) => label.trim()).filter(Boolean))];
  await write(backTo(form), (api) => api.issues.patch({ ...issueRef(form), labels }));
}

/** Assigns the issue to a person named by username (their id through their profile), or unassigns (an empty `assignee`). */
export async function setIssueAssignee(form: FormData) {
  const username = field(form, "assignee").trim().replace(/^@/, "");
  await write(backTo(form), async (api) => {
    const assignee = username ? (await api.users.profile({ username })).user.id : null;
    return api.issues.patch({ ...issueRef(form), assignee });
  });
}
