"use server";

import { field } from "../../_lib/form";
import { write } from "../../_lib/session";

/** A blank display name clears it (the username alone shows). */
export async function saveDisplayName(form: FormData) {
  const displayName = field(form, "displayName").trim() || null;
  await write("/settings/account", (api) => api.users.updateMe({ displayName }), "/settings/account?saved=1");
}
