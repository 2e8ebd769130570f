import Link from "next/link";

export const metadata = { title: "Forbidden" };

/** The 403 page, inside the site layout (which holds the one <main>). */
export default function Forbidden() {
  return (
    <div className="status-page">
      <p className="status-code" aria-hidden="true">
        403
      </p>
      <h1>Forbidden</h1>
      <p>You can read this project but this page needs more access than you have.</p>
      <p>
        <Link href="/">Home</Link>
      </p>
    </div>
  );
}
