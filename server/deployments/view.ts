import type { Deployment } from "@/server/generated/prisma/client";
import { projectPath } from "@/server/projects";

export const DEPLOYMENT_STATUSES = [
  "pending_approval",
  "queued",
  "running",
  "succeeded",
  "failed",
  "superseded",
  "skipped",
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
export const TERMINAL_STATUSES: readonly DeploymentStatus[] = ["succeeded", "failed", "superseded", "skipped"];

export interface DeploymentView {
  id: string;
  project: { id: string; path: string };
  name: string;
  commit: string;
  attempt: number;
  status: DeploymentStatus;
  changeId: string | null;
  requestedBy: string;
  approvedBy: string | null;
  approvedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  logTail?: string | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** The wire form; `logTail` only for callers who can write the project. */
export function deploymentView(
  row: Deployment,
  project: { id: string; namespace: string; slug: string },
  withLog: boolean,
): DeploymentView {
  return {
    id: row.id,
    project: { id: project.id, path: projectPath(project) },
    name: row.name,
    commit: row.commit,
    attempt: row.attempt,
    status: row.status,
    changeId: row.changeId,
    requestedBy: row.requestedBy,
    approvedBy: row.approvedBy,
    approvedAt: iso(row.approvedAt),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(withLog ? { logTail: row.logTail } : {}),
  };
}

/** The data of every deployment domain event. */
export const deploymentEventData = (row: Pick<Deployment, "id" | "name" | "commit" | "attempt" | "status">) => ({
  deploymentId: row.id,
  name: row.name,
  commit: row.commit,
  attempt: row.attempt,
  status: row.status,
});
