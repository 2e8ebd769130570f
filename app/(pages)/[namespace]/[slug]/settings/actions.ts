"use server";

import { backTo, field } from "../../../_lib/form";
import { write } from "../../../_lib/session";

// Settings forms without a form-friendly route; each calls its /api route's procedure.

const projectRef = (form: FormData) => ({ namespace: field(form, "namespace"), slug: field(form, "slug") });

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
