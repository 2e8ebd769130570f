import { field } from "../../../_lib/form";
import { redirectWithRefusal, redirectWithSecret } from "../../../_lib/secret-flash";
import { attempt } from "../../../_lib/session";

const PAGE = "/settings/tokens";

/** The token page's create form: makes the token, then back to the page, which shows its plaintext once. */
export async function POST(request: Request) {
  const form = await request.formData();
  const days = field(form, "expiresInDays");
  const scope = field(form, "scope") === "read_write" ? "read_write" : "read";
  const outcome = await attempt(async (api, identity) => ({
    created: await api.users.createToken({
      name: field(form, "name"),
      scope,
      expiresInDays: days ? Number(days) : undefined,
    }),
    identity,
  }));
  if ("error" in outcome) return redirectWithRefusal(PAGE, outcome.error);
  const { created, identity } = outcome.value;
  if (identity.kind !== "user") return redirectWithRefusal(PAGE, "Only a signed-in person makes tokens here");
  return redirectWithSecret(PAGE, identity.userId, { label: `Token ${created.token.name}`, secret: created.plaintext });
}
