type RunStatus = { id: string; status: string };

/** Each run's `id:status`, the page's and the poll's to compare (shared by server and client). */
export const statusesOf = (runs: RunStatus[]) => runs.map((run) => `${run.id}:${run.status}`).join(",");
