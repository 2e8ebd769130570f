import Link from "next/link";
import { session } from "./_lib/session";

export const dynamic = "force-dynamic";

export default async function PagesLayout({ children }: { children: React.ReactNode }) {
  const { identity } = await session();
  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="site">
        <nav aria-label="Site">
          <ul>
            <li>
              <Link href="/">svc-forge</Link>
            </li>
            {identity.kind === "user" && (
              <li>
                <Link href="/settings/tokens">Tokens</Link>
              </li>
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
      <main id="content">{children}</main>
      <footer className="site">
        svc-forge · <a href="/api/openapi.json">API description</a>
      </footer>
    </>
  );
}
