import { z } from "zod";
import { publicUserOutput } from "@/server/auth";
import { authedProcedure, router, userProcedure } from "@/server/trpc";
import { nameSlug, pathSegment, text, namedSchema } from "@/server/http";
import { createOrg, getOrg, listMembers, listOrgs, putMember, removeMember } from "./service";
import { addTeamMember, createTeam, deleteTeam, listTeamMembers, listTeams, removeTeamMember } from "./teams";

const tags = ["orgs"];
const ORG = "/orgs/{org}";
const TEAM = `${ORG}/teams/{team}`;

const orgOutput = namedSchema("Organization", () =>
  z.object({ id: z.string(), slug: z.string(), name: z.string(), createdAt: z.string() }),
);
const orgRole = () => z.enum(["read", "write", "admin", "owner"]);
const memberOutput = namedSchema("OrganizationMember", () =>
  z.object({ user: publicUserOutput(), role: orgRole(), createdAt: z.string() }),
);
const teamOutput = namedSchema("Team", () =>
  z.object({ id: z.string(), slug: z.string(), name: z.string(), description: z.string(), createdAt: z.string() }),
);
const orgParams = () => ({ org: pathSegment() });
const teamParams = () => ({ org: pathSegment(), team: pathSegment() });

export const orgsRouter = router({
  create: userProcedure
    .meta({
      openapi: { method: "POST", path: "/orgs", tags, summary: "Create an organization; the caller becomes its owner" },
      successStatus: 201,
      errors: { 409: ["NAMESPACE_TAKEN"] },
    })
    .input(z.object({ slug: nameSlug(), name: text().trim().min(1).max(100).optional() }))
    .output(z.object({ org: orgOutput() }))
    .mutation(async ({ ctx, input }) => ({ org: await createOrg(ctx.identity, input) })),

  list: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/orgs",
        tags,
        summary: "The caller's organizations (an agent's owner's), with the caller's role",
      },
    })
    .input(z.object({}))
    .output(z.object({ orgs: z.array(orgOutput().extend({ role: orgRole() })) }))
    .query(async ({ ctx }) => ({ orgs: await listOrgs(ctx.identity) })),

  get: authedProcedure
    .meta({
      openapi: { method: "GET", path: ORG, tags, summary: "One organization (members only; 404 otherwise)" },
      etag: true,
      errors: { 403: [] },
    })
    .input(z.object(orgParams()))
    .output(z.object({ org: orgOutput().extend({ role: orgRole() }) }))
    .query(async ({ ctx, input }) => ({ org: await getOrg(ctx.identity, input.org) })),

  members: authedProcedure
    .meta({
      openapi: { method: "GET", path: `${ORG}/members`, tags, summary: "Members and their roles" },
      errors: { 403: [] },
    })
    .input(z.object(orgParams()))
    .output(z.object({ members: z.array(memberOutput()) }))
    .query(async ({ ctx, input }) => ({ members: await listMembers(ctx.identity, input.org) })),

  putMember: userProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${ORG}/members/{username}`,
        tags,
        summary: "Add a member or change a role (admins; only owners grant or take owner)",
      },
      errors: { 409: ["LAST_OWNER"] },
    })
    .input(z.object({ ...orgParams(), username: pathSegment(), role: orgRole() }))
    .output(z.object({ member: memberOutput() }))
    .mutation(async ({ ctx, input }) => ({ member: await putMember(ctx.identity, input) })),

  removeMember: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${ORG}/members/{username}`,
        tags,
        summary: "Remove a member (admins, or the member themself) and their team memberships",
      },
      errors: { 409: ["LAST_OWNER"] },
    })
    .input(z.object({ ...orgParams(), username: pathSegment() }))
    .output(z.object({ removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await removeMember(ctx.identity, input);
      return { removed: true as const };
    }),

  teams: authedProcedure
    .meta({
      openapi: { method: "GET", path: `${ORG}/teams`, tags, summary: "Teams of the organization" },
      errors: { 403: [] },
    })
    .input(z.object(orgParams()))
    .output(z.object({ teams: z.array(teamOutput()) }))
    .query(async ({ ctx, input }) => ({ teams: await listTeams(ctx.identity, input.org) })),

  createTeam: userProcedure
    .meta({
      openapi: { method: "POST", path: `${ORG}/teams`, tags, summary: "Create a team (admins)" },
      successStatus: 201,
      errors: { 409: ["CONFLICT"] },
    })
    .input(
      z.object({
        ...orgParams(),
        slug: nameSlug(),
        name: text().trim().min(1).max(100).optional(),
        description: text().max(1000).optional(),
      }),
    )
    .output(z.object({ team: teamOutput() }))
    .mutation(async ({ ctx, input }) => ({ team: await createTeam(ctx.identity, input) })),

  deleteTeam: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: TEAM,
        tags,
        summary: "Delete a team with its memberships and project grants (admins)",
      },
    })
    .input(z.object(teamParams()))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await deleteTeam(ctx.identity, input);
      return { deleted: true as const };
    }),

  teamMembers: authedProcedure
    .meta({
      openapi: { method: "GET", path: `${TEAM}/members`, tags, summary: "Members of a team" },
      errors: { 403: [] },
    })
    .input(z.object(teamParams()))
    .output(z.object({ members: z.array(z.object({ user: publicUserOutput() })) }))
    .query(async ({ ctx, input }) => ({ members: await listTeamMembers(ctx.identity, input) })),

  addTeamMember: userProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${TEAM}/members/{username}`,
        tags,
        summary: "Add an organization member to a team (admins)",
      },
      errors: { 422: ["NOT_ORG_MEMBER"] },
    })
    .input(z.object({ ...teamParams(), username: pathSegment() }))
    .output(z.object({ member: z.object({ user: publicUserOutput() }) }))
    .mutation(async ({ ctx, input }) => ({ member: await addTeamMember(ctx.identity, input) })),

  removeTeamMember: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${TEAM}/members/{username}`,
        tags,
        summary: "Remove a member from a team (admins)",
      },
    })
    .input(z.object({ ...teamParams(), username: pathSegment() }))
    .output(z.object({ removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await removeTeamMember(ctx.identity, input);
      return { removed: true as const };
    }),
});
