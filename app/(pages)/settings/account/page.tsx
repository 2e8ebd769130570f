import Link from "next/link";
import { DISPLAY_NAME_MAX } from "@/server/limits";
import { Avatar } from "../../_components/person";
import { Flash } from "../../_components/flash";
import { requireUser } from "../../_lib/session";
import { saveDisplayName } from "./actions";

export const metadata = { title: "Account" };

/** The signed-in person's account: the name others see beside their username, and their picture. */
export default async function AccountPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { api } = await requireUser();
  const [query, me] = await Promise.all([searchParams, api.users.me({})]);
  return (
    <>
      <h1>Account</h1>
      <Flash query={query} />
      {query.saved === "1" && !query.error && (
        <p role="status" className="notice">
          Saved.
        </p>
      )}
      <p className="person-header">
        <Avatar username={me.username} size={48} />
        <span>
          {me.displayName && <strong>{me.displayName} </strong>}
          <Link href={`/@${encodeURIComponent(me.username)}`}>@{me.username}</Link>
        </span>
      </p>
      <p className="muted">
        {me.avatarUrl
          ? "Your picture is the one of your sign-in provider's profile."
          : "Your picture is generated from your username; sign in through the provider to use its picture."}
      </p>
      <section aria-labelledby="display-name">
        <h2 id="display-name">Display name</h2>
        <form action={saveDisplayName}>
          <div>
            <label htmlFor="display-name-input">Shown beside your username (leave blank for none)</label>
            <input
              id="display-name-input"
              name="displayName"
              defaultValue={me.displayName ?? ""}
              maxLength={DISPLAY_NAME_MAX}
              autoComplete="name"
            />
          </div>
          <button type="submit">Save</button>
        </form>
      </section>
    </>
  );
}
