import { expect } from "vitest";
import { db } from "@/server/db/client";
import { changeWith, merge, projectWith, POLICY, type TestProject } from "@/server/changes/test-fixtures";
import { call } from "@/tests/support/http";

/** A `deploys:` block with one entry per object (YAML flow mappings). */
export const deploysPolicy = (...entries: Array<Record<string, unknown>>) =>
  `deploys:\n${entries.map((entry) => `  - ${JSON.stringify(entry)}\n`).join("")}`;

export async function projectDeploying(token: string, ...entries: Array<Record<string, unknown>>) {
  return projectWith(token, { "README.md": "hi\n", [POLICY]: deploysPolicy(...entries) });
}

/** Merges one new change into the project (its files on top); returns the change id and merged commit. */
export async function mergeChange(
  token: string,
  project: TestProject,
  files: Record<string, string | null> = { [`f${Math.random()}.txt`]: "x\n" },
) {
  const { change } = await changeWith(token, project, files);
  const merged = await merge(token, change.id);
  expect(merged.status, merged.text).toBe(200);
  return { changeId: change.id as string, commit: merged.body.commit as string };
}

export async function putSecret(token: string, project: TestProject, name: string, value: string) {
  const res = await call("PUT", `/api/projects/${project.path}/secrets/${name}`, { token, body: { value } });
  expect([200, 201]).toContain(res.status);
}

export async function deploymentRows(projectId: string) {
  return (await db()).deployment.findMany({
    where: { projectId },
    orderBy: [{ createdAt: "asc" }, { attempt: "asc" }],
  });
}

export const getDeployment = (token: string | undefined, id: string) =>
  call("GET", `/api/deployments/${id}`, { token });
