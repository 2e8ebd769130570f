import Link from "next/link";
import type { PageCaller } from "@/server/api";
import { TableHead } from "./table-head";
import { RelativeTime } from "./relative-time";

export type Deployment = Awaited<ReturnType<PageCaller["deployments"]["get"]>>["deployment"];

const TERMINAL = ["succeeded", "failed", "superseded", "skipped"];

/**
 * Deployments as a table: name, commit, attempt, status, the change that asked for it and its
 * times. Writers get Approve (awaiting approval, people only) and Retry (finished) buttons, plain
 * forms posting to the API's form-friendly routes, which land on the deployment's page; the log
 * tail is there only when the API sent it (to writers).
 */
export function DeploymentTable({
  deployments,
  base,
  canWrite,
  canApprove,
  label,
}: {
  deployments: Deployment[];
  base: string;
  canWrite: boolean;
  canApprove: boolean;
  label: string;
}) {
  return (
    <div className="scroll">
      <table aria-label={label}>
        <TableHead columns={["Name", "Commit", "Attempt", "Status", "Change", "Requested", "Finished", "Actions"]} />
        <tbody>
          {deployments.map((deployment) => (
            <tr key={deployment.id}>
              <td>
                <Link href={`${base}/deployments/${deployment.id}`}>{deployment.name}</Link>
              </td>
              <td>
                <code>{deployment.commit.slice(0, 12)}</code>
              </td>
              <td>{deployment.attempt}</td>
              <td>
                <span className="badge">{deployment.status.replace("_", " ")}</span>
                {deployment.error && <div className="muted">{deployment.error}</div>}
                {deployment.logTail !== undefined && (
                  <details>
                    <summary>Log</summary>
                    <pre>{deployment.logTail || "(empty)"}</pre>
                  </details>
                )}
              </td>
              <td>
                {deployment.changeId ? (
                  <Link href={`${base}/changes/${deployment.changeId}`}>{deployment.changeId.slice(0, 8)}</Link>
                ) : (
                  <span className="muted">push</span>
                )}
              </td>
              <td>
                <RelativeTime iso={deployment.createdAt} />
              </td>
              <td>
                <RelativeTime iso={deployment.finishedAt} fallback="—" />
              </td>
              <td>
                {canApprove && deployment.status === "pending_approval" && (
                  <form method="post" action={`/api/deployments/${deployment.id}/approve`}>
                    <button
                      type="submit"
                      className="primary"
                      aria-label={`Approve ${deployment.name} attempt ${deployment.attempt}`}
                    >
                      Approve
                    </button>
                  </form>
                )}
                {canWrite && TERMINAL.includes(deployment.status) && (
                  <form method="post" action={`/api/deployments/${deployment.id}/retry`}>
                    <button type="submit" aria-label={`Retry ${deployment.name} attempt ${deployment.attempt}`}>
                      Retry
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
