"use client";

/** The 500 page, inside the site layout: what happened, and the id an operator finds in the log. */
export default function ErrorPage({ error }: { error: Error & { digest?: string } }) {
  return (
    <div className="status-page">
      <title>Something went wrong · svc-forge</title>
      <p className="status-code" aria-hidden="true">
        500
      </p>
      <h1>Something went wrong</h1>
      <p>The server could not show this page. Try again in a moment.</p>
      {error.digest && (
        <p className="muted">
          Error id <code>{error.digest}</code>
        </p>
      )}
      <p>
        <a href="/">Home</a>
      </p>
    </div>
  );
}
