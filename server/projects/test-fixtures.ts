import type { OrgRole } from "@/server/generated/prisma/enums";
import { expect } from "vitest";
import { forgetGrants } from "@/server/access";
import { db } from "@/server/db/client";
import { call } from "@/tests/support/http";

/** Creates a project through POST /api/projects and returns the 201 body. */
export async function createTestProject(token: string, body: Record<string, unknown>) {
  const res = await call("POST", "/api/projects", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    id: string;
    name: string;
    namespace: string;
    slug: string;
    path: string;
    remote: string;
    commit: string;
    visibility: string;
  };
}

/** A collaborator row written directly, for tests that are not about granting (tests/access drives the routes). */
export async function grantCollaborator(projectId: string, userId: string, role: "read" | "write" | "admin") {
  await (await db()).projectCollaborator.create({ data: { projectId, userId, role } });
  await forgetGrants();
}

/** An organization with members written directly, for tests that are not about organizations (tests/access drives the routes). */
export async function createTestOrg(slug: string, members: Array<{ userId: string; role: OrgRole }>) {
  const prisma = await db();
  const org = await prisma.organization.create({ data: { slug, name: slug } });
  for (const member of members) await prisma.orgMember.create({ data: { orgId: org.id, ...member } });
  await forgetGrants();
  return org;
}
