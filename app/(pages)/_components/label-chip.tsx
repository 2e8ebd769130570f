import Link from "next/link";

/** One of the stylesheet's label colours, picked from the name so a label looks the same everywhere. */
export function labelColour(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return `c${hash % 8}`;
}

/** A coloured label linking to the issue list filtered by it. */
export function LabelChip({ name, href }: { name: string; href: string }) {
  return (
    <Link className={`label ${labelColour(name)}`} href={href} aria-label={`Label ${name}: show issues with it`}>
      {name}
    </Link>
  );
}
