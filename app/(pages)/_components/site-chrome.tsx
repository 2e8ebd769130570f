import Link from "next/link";
import { session } from "../_lib/session";

/** The site's header: home, the signed-in person's links and sign-out, or sign-in. */
export async function SiteHeader() {
  const { identity } = await session();
  return (
    <header className="site">
      <nav aria-label="Site">
        <ul>
          <li>
            <Link href="/">svc-forge</Link>
          </li>
          {identity.kind === "user" && (
            <>
              <li>
                <Link href="/settings/account">Account</Link>
              </li>
              <li>
                <Link href="/settings/tokens">Tokens</Link>
              </li>
            </>
          )}
        </ul>
      </nav>
      <div className="who">
        {identity.kind === "user" ? (
          <>
            <span>Signed in as {identity.username}</span>
            <form method="post" action="/logout">
              <button type="submit">Sign out</button>
            </form>
          </>
        ) : (
          <Link href="/login">Sign in</Link>
        )}
      </div>
    </header>
  );
}

export function SiteFooter() {
  return (
    <footer className="site">
      svc-forge · <a href="/api/openapi.json">API description</a>
    </footer>
  );
}
