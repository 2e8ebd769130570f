import { TableHead } from "../../../../_components/table-head";
import { statusesOf } from "./run-statuses";
import { RunsFollower } from "./runs-follower";

type Finding = { message: string; file?: string; line?: number; rule?: string };
export type EvalRunRow = {
  id: string;
  evaluator: string;
  status: string;
  tipSha: string;
  findings: Finding[];
  attempts: number;
  flaky: boolean;
  timedOut: boolean;
  reusedFrom: string | null;
  cache: { key: string; hit: boolean } | null;
};

/** What a run's status cell adds to its status: retried, flaky, killed, reused, cached. */
function notes(run: EvalRunRow): string {
  const parts = [
    run.attempts > 1 && `${run.attempts} attempts`,
    run.flaky && "flaky",
    run.timedOut && "timed out",
    run.reusedFrom && "reused",
    run.cache?.hit && "cache hit",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/**
 * A change's eval runs: status, findings (a failed test links to its line in the evaluated tree)
 * and the tail of each run's log. `logs` holds the logs read for the page, by run id. While a run
 * is queued or running the list follows it without a reload (RunsFollower).
 */
export function EvalRuns({
  base,
  changeId,
  runs,
  logs,
}: {
  base: string;
  changeId: string;
  runs: EvalRunRow[];
  logs: Map<string, string>;
}) {
  return (
    <div className="scroll">
      <RunsFollower changeId={changeId} seen={statusesOf(runs)} />
      <table aria-label="Evaluation runs">
        <TableHead columns={["Evaluator", "Status", "Findings"]} />
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} id={`run-${run.id}`}>
              <td>{run.evaluator}</td>
              <td>
                {run.status}
                {notes(run)}
              </td>
              <td>
                {run.findings.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <ul>
                    {run.findings.map((finding, index) => (
                      <li key={index}>
                        {finding.file && (
                          <a
                            href={`${base}/blob/${run.tipSha}/${finding.file.split("/").map(encodeURIComponent).join("/")}${finding.line !== undefined ? `#L${finding.line}` : ""}`}
                          >
                            <code>
                              {finding.file}
                              {finding.line !== undefined && `:${finding.line}`}
                            </code>
                          </a>
                        )}{" "}
                        {finding.message}
                      </li>
                    ))}
                  </ul>
                )}
                {logs.has(run.id) && (
                  <details>
                    {/* The link stays out of the summary: a control inside another is not reachable as itself. */}
                    <summary>Log</summary>
                    <a href={`/api/changes/${changeId}/evaluations/${run.id}/log`}>Whole log</a>
                    <pre>{logs.get(run.id)}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
