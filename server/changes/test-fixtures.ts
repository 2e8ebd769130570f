import { expect } from "vitest";
import { call } from "@/tests/support/http";
import { createTestProject } from "@/server/projects/test-fixtures";

export type TestProject = Awaited<ReturnType<typeof createTestProject>>;

let counter = 0;

/** A project with `files` (add `.svc/policy.yml` for a policy). */
export async function projectWith(
  token: string,
  files: Record<string, string>,
  visibility: "private" | "public" = "private",
) {
  return createTestProject(token, { name: `p${++counter}${Date.now().toString(36)}`, files, visibility });
}

export async function workspaceOf(token: string, project: TestProject, name = `ws${++counter}`) {
  const res = await call("POST", `/api/workspaces/${project.path}/workspaces`, { token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

export async function commitTo(
  token: string,
  project: TestProject,
  workspace: string,
  files: Record<string, string | null>,
  message = "work",
) {
  const res = await call("POST", `/api/workspaces/${workspace}/commit`, {
    token,
    body: { projectId: project.id, message, files },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.commit as string;
}

export async function propose(token: string, project: TestProject, workspace: string) {
  return call("POST", `/api/projects/${project.path}/changes`, { token, body: { workspace } });
}

/** A workspace with one commit proposed as a change; returns the 201 body. */
export async function changeWith(token: string, project: TestProject, files: Record<string, string | null>) {
  const workspace = await workspaceOf(token, project);
  await commitTo(token, project, workspace, files);
  const res = await propose(token, project, workspace);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...res.body, workspace } as { change: any; eval: any; evalRuns: any[]; workspace: string };
}

export const merge = (token: string, changeId: string, query = "") =>
  call("POST", `/api/changes/${changeId}/merge${query}`, { token });

export async function createAgentFor(token: string, model = "gpt-test") {
  const res = await call("POST", "/api/agents", { token, body: { name: "bot", model } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.agent.id as string, token: res.body.token as string };
}

/** Domain events of a project, oldest first, straight from the outbox. */
export async function eventsOf(projectId: string, kind?: string) {
  const { db } = await import("@/server/db/client");
  return (await db()).domainEvent.findMany({
    where: { projectId, ...(kind ? { kind } : {}) },
    orderBy: { seq: "asc" },
  });
}

/** Moves the project's default branch with a direct commit (as a push would). */
export async function advanceProject(project: TestProject, files: Record<string, string | null>) {
  const { openProjectRepo } = await import("@/server/git");
  const { commitUnhooked } = await import("@/server/git/commit");
  return (
    await commitUnhooked(openProjectRepo(project.id), "main", {
      files,
      message: "direct",
      author: { name: "x", email: "x@example.com" },
    })
  ).oid;
}

export const POLICY = ".svc/policy.yml";

/** An owner with an agent, a reader, and a project with one accepted change: the cast of access tests. */
export async function ownerReaderAgentChange() {
  const { createTestUser } = await import("@/tests/support/users");
  const { grantCollaborator } = await import("@/server/projects/test-fixtures");
  const owner = await createTestUser();
  const reader = await createTestUser();
  const agent = await createAgentFor(owner.token);
  const project = await projectWith(owner.token, { "README.md": "hi\n" });
  await grantCollaborator(project.id, reader.id, "read");
  const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
  return { owner, reader, agent, project, change };
}
