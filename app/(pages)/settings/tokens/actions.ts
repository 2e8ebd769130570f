"use server";

import { revalidatePath } from "next/cache";
import { field } from "../../_lib/form";
import type { SecretOnceState } from "../../_components/secret-once-form";
import { attempt, write } from "../../_lib/session";

/** Creates a token; its plaintext goes back in the form's state, shown this once and never stored. */
export async function createToken(_previous: SecretOnceState, form: FormData): Promise<SecretOnceState> {
  const days = field(form, "expiresInDays");
  const scope = field(form, "scope") === "read_write" ? "read_write" : "read";
  const outcome = await attempt((api) => api.users.createToken({ name: field(form, "name"), scope, expiresInDays: days ? Number(days) : undefined }));
  if ("error" in outcome) return { error: outcome.error };
  revalidatePath("/settings/tokens");
  return { secret: outcome.value.plaintext, label: `Token ${outcome.value.token.name}` };
}

export async function revokeToken(form: FormData) {
  await write("/settings/tokens", (api) => api.users.revokeToken({ id: field(form, "id") }));
}
