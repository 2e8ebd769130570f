"use server";

import { backTo, field } from "../../../_lib/form";
import { write } from "../../../_lib/session";

// Settings forms without a form-friendly route; each calls its /api route's procedure.

const projectRef = (form: FormData) => ({ namespace: field(form, "namespace"), slug: field(form, "slug") });

/** Name, description, visibility and default branch; a rename lands on the settings page at the new path. */
export async function updateProject(form: FormData) {
  const ref = projectRef(form);
  const name = field(form, "name").trim();
  const visibility = field(form, "visibility") === "public" ? "public" : "private";
  const renamed =
    name !== "" && name !== ref.slug ? `/${ref.namespace}/${encodeURIComponent(name)}/settings` : undefined;
  await write(
    backTo(form),
    (api) =>
      api.projects.update({
        ...ref,
        name: name || undefined,
        description: field(form, "description").trim(),
        visibility,
        defaultBranch: field(form, "defaultBranch") || undefined,
      }),
    renamed,
  );
}

export async function toggleWebhook(form: FormData) {
  await write(backTo(form), (api) => api.webhooks.toggle({ ...projectRef(form), id: field(form, "id") }));
}

export async function putCollaborator(form: FormData) {
  const permission = field(form, "permission") as "read" | "write" | "admin";
  await write(backTo(form), (api) =>
    api.projectAccess.putCollaborator({ ...projectRef(form), username: field(form, "username"), permission }),
  );
}

export async function removeCollaborator(form: FormData) {
  await write(backTo(form), (api) =>
    api.projectAccess.removeCollaborator({ ...projectRef(form), username: field(form, "username") }),
  );
}

/** Commits `.svc/policy.yml` on the default branch (admins); a policy that does not parse is refused, the page says why. */
export async function commitPolicy(form: FormData) {
  await write(backTo(form), (api) =>
    api.projects.writePolicy({
      ...projectRef(form),
      text: field(form, "text"),
      expectedCommit: field(form, "commit"),
      message: field(form, "message").trim() || undefined,
    }),
  );
}
