import { config } from "@/server/config";
import { session } from "../_lib/session";

export const metadata = { title: "Sign in" };

export default async function Login() {
  const { identity } = await session();
  return (
    <>
      <h1>Sign in</h1>
      {identity.kind === "user" && <p>You are signed in as {identity.username}.</p>}
      {config.devLogin && (
        <section aria-labelledby="dev-login">
          <h2 id="dev-login">Development sign-in</h2>
          <p className="muted">Signs in as the user of this name, creating it if needed (DEV_LOGIN=1).</p>
          <form method="post" action="/api/auth/dev-login">
            <label htmlFor="username">Username</label>
            <input id="username" name="username" required autoComplete="username" />{" "}
            <button type="submit" className="primary">
              Sign in
            </button>
          </form>
        </section>
      )}
      {config.githubClientId && (
        <section aria-labelledby="github-login">
          <h2 id="github-login">GitHub</h2>
          {/* Auth.js's own page carries its CSRF token into the OAuth flow. */}
          <a href="/api/auth/signin">Sign in with GitHub</a>
        </section>
      )}
      {!config.devLogin && !config.githubClientId && <p>No sign-in method is configured on this instance.</p>}
    </>
  );
}
