"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { statusesOf } from "./run-statuses";

/** How often the page asks for its runs while one is queued or running. */
const POLL_MS = 1500;

/**
 * Keeps the change page's runs current while any is queued or running: polls the change (the
 * session's own GET /api/changes/{id}) and, when a run's status moved, re-renders the page's server
 * components in place (router.refresh: no reload, scroll and open details kept). `seen` is each
 * run's `id:status` as the page was rendered; a new render passes the new ones and the poll restarts.
 */
export function RunsFollower({ changeId, seen }: { changeId: string; seen: string }) {
  const router = useRouter();
  const going = /:(queued|running)(,|$)/.test(seen);
  useEffect(() => {
    if (!going) return;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      fetch(`/api/changes/${encodeURIComponent(changeId)}`, { headers: { accept: "application/json" } })
        .then((response) => (response.ok ? (response.json() as Promise<{ evalRuns: RunState[] }>) : null))
        .then((state) => {
          if (state && statusesOf(state.evalRuns) !== seen) router.refresh();
        })
        .catch(() => undefined) // offline for a moment: the next poll asks again
        .finally(() => (busy = false));
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [changeId, seen, going, router]);
  return going ? (
    <p role="status" className="muted">
      Runs are going; this list follows them.
    </p>
  ) : null;
}

type RunState = { id: string; status: string };
