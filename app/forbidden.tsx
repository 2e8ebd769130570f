import Link from "next/link";

export default function Forbidden() {
  return (
    <main id="content">
      <h1>Forbidden</h1>
      <p>You can read this project but this page needs more access than you have.</p>
      <p>
        <Link href="/">Home</Link>
      </p>
    </main>
  );
}
