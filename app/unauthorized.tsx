import Link from "next/link";

export const metadata = { title: "Sign in needed" };

/**
 * The 401 page, inside the site layout. Pages send anonymous callers to /login instead, but with
 * authInterrupts on, every page carries this tree in its payload: Next.js's default is a
 * stand-alone page with inline styles, several times this size.
 */
export default function Unauthorized() {
  return (
    <div className="status-page">
      <h1>Sign in needed</h1>
      <p>
        <Link href="/login">Sign in</Link>
      </p>
    </div>
  );
}
