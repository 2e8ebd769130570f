import Link from "next/link";

/** A commit id, short, linking to its commit page. */
export function CommitLink({ base, sha }: { base: string; sha: string }) {
  return (
    <Link href={`${base}/commit/${sha}`}>
      <code>{sha.slice(0, 12)}</code>
    </Link>
  );
}
