import type { ReactNode } from "react";

type Kind = "dir" | "file" | "symlink" | "submodule";

const SHAPES: Record<Kind, ReactNode> = {
  dir: <path d="M1.5 3h4l1.5 1.5h7.5v9h-13z" />,
  file: <path d="M3 1.5h6.5l3.5 3.5v9.5h-10z M9.5 1.5v3.5h3.5" />,
  symlink: <path d="M3 1.5h6.5l3.5 3.5v9.5h-10z M5.5 11l4-4 M6.5 7h3v3" />,
  submodule: <path d="M1.5 3h4l1.5 1.5h7.5v9h-13z M5 9h6 M9 7l2 2-2 2" />,
};

/** What a tree entry is, as an icon; the name beside it carries the text (kind in `title`). */
export function EntryIcon({ kind }: { kind: Kind }) {
  return (
    <svg
      className={`entry-icon ${kind}`}
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.2"
    >
      {SHAPES[kind]}
    </svg>
  );
}
