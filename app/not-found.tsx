import Link from "next/link";

export const metadata = { title: "Not found" };

/** The 404 page, inside the site layout (which holds the one <main>). */
export default function NotFound() {
  return (
    <div className="status-page">
      <p className="status-code" aria-hidden="true">
        404
      </p>
      <h1>Not found</h1>
      <p>There is nothing here, or you cannot see it.</p>
      <p>
        <Link href="/">Home</Link> · <Link href="/login">Sign in</Link>
      </p>
    </div>
  );
}
