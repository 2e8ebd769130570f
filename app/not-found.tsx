import Link from "next/link";

export default function NotFound() {
  return (
    <main id="content">
      <h1>Not found</h1>
      <p>There is nothing here, or you cannot see it.</p>
      <p>
        <Link href="/">Home</Link> · <Link href="/login">Sign in</Link>
      </p>
    </main>
  );
}
