"use server";

import { field } from "../../_lib/form";
import { write } from "../../_lib/session";

export async function revokeToken(form: FormData) {
  await write("/settings/tokens", (api) => api.users.revokeToken({ id: field(form, "id") }));
}
