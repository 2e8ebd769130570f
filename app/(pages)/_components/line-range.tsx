"use client";

import { useEffect } from "react";

const RANGE = /^#L(\d+)(?:-L(\d+))?$/;

/**
 * Marks the lines a `#L10` or `#L10-L20` address names (CSS :target covers only one) and lets a
 * shift-click on a line number extend the selection into a range. The page works without it: the
 * numbers are plain `#L<n>` links.
 */
export function LineRange() {
  useEffect(() => {
    let anchor: number | null = null;
    const mark = () => {
      document.querySelectorAll(".lines p.selected").forEach((row) => row.classList.remove("selected"));
      const match = RANGE.exec(window.location.hash);
      if (!match) return;
      const first = Number(match[1]);
      const last = Number(match[2] ?? match[1]);
      anchor = first;
      for (let n = Math.min(first, last); n <= Math.max(first, last); n++)
        document.getElementById(`L${n}`)?.parentElement?.classList.add("selected");
      document.getElementById(`L${Math.min(first, last)}`)?.scrollIntoView({ block: "center" });
    };
    const click = (event: MouseEvent) => {
      const link = (event.target as Element).closest?.('a[href^="#L"]');
      if (!link || !event.shiftKey || anchor === null) return;
      event.preventDefault();
      const n = Number(link.getAttribute("href")!.slice(2));
      window.location.hash = n === anchor ? `#L${n}` : `#L${Math.min(anchor, n)}-L${Math.max(anchor, n)}`;
    };
    mark();
    window.addEventListener("hashchange", mark);
    document.addEventListener("click", click);
    return () => {
      window.removeEventListener("hashchange", mark);
      document.removeEventListener("click", click);
    };
  }, []);
  return null;
}
