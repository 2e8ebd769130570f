"use client";

import { useState, useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * Copies the value of the input `target` names. Rendered only once scripts run (the button is absent
 * from the server's HTML), so without JavaScript the read-only input beside it is selected by hand.
 */
export function CopyButton({ target, label }: { target: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  // False in the server's HTML and during hydration, true once scripts run.
  const scripted = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  if (!scripted) return null;
  const copy = async () => {
    const input = document.getElementById(target) as HTMLInputElement | null;
    if (!input) return;
    try {
      await navigator.clipboard.writeText(input.value);
      setState("copied");
    } catch {
      input.select();
      setState("failed");
    }
  };
  return (
    <button type="button" onClick={() => void copy()} aria-label={label}>
      {state === "copied" ? "Copied" : state === "failed" ? "Press Ctrl+C" : "Copy"}
    </button>
  );
}
