import { z } from "zod";
import { publicUserOutput } from "@/server/auth";
import { authedProcedure, publicProcedure, router, userProcedure } from "@/server/trpc";
import { pathSegment, text, namedSchema } from "@/server/http";
import { projectParams } from "./schemas";
import {
  assignableUsers,
  explainPermission,
  listCollaborators,
  listTeamProjects,
  putCollaborator,
  putTeamProject,
  removeCollaborator,
  removeTeamProject,
} from "./grants";

const tags = ["access"];
const PROJECT = "/projects/{namespace}/{slug}";
const TEAM_PROJECTS = "/orgs/{org}/teams/{team}/projects";

const grantPermission = () => z.enum(["read", "write", "admin"]);
const collaboratorOutput = namedSchema("Collaborator", () =>
  z.object({ user: publicUserOutput(), permission: grantPermission() }),
);
const teamParams = () => ({ org: pathSegment(), team: pathSegment() });

/** Who may do what on a project: collaborators, team grants and the permission explain route. */
export const projectAccessRouter = router({
  // No REST route: the issue page's assignee picker reads it in-process (typed callers through /api/trpc).
  assignees: publicProcedure
    .input(z.object(projectParams()))
    .output(z.object({ users: z.array(publicUserOutput()) }))
    .query(async ({ ctx, input }) => ({ users: await assignableUsers(ctx.identity, input) })),

  collaborators: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/collaborators`,
        tags,
        summary: "Collaborators of a project (project admins)",
      },
      errors: { 403: [] },
    })
    .input(z.object(projectParams()))
    .output(z.object({ collaborators: z.array(collaboratorOutput()) }))
    .query(async ({ ctx, input }) => ({ collaborators: await listCollaborators(ctx.identity, input) })),

  putCollaborator: userProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${PROJECT}/collaborators/{username}`,
        tags,
        summary: "Grant a user read, write or admin on a project (project admins)",
      },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), username: pathSegment(), permission: grantPermission() }))
    .output(z.object({ collaborator: collaboratorOutput() }))
    .mutation(async ({ ctx, input }) => ({ collaborator: await putCollaborator(ctx.identity, input) })),

  removeCollaborator: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${PROJECT}/collaborators/{username}`,
        tags,
        summary: "Take a collaborator's grant away (project admins)",
      },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), username: pathSegment() }))
    .output(z.object({ removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await removeCollaborator(ctx.identity, input);
      return { removed: true as const };
    }),

  permission: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/permission`,
        tags,
        summary: "A user's effective permission and every grant behind it (project admins, or that user)",
      },
      errors: { 403: [] },
    })
    .input(z.object({ ...projectParams(), user: text().min(1).max(100).optional() }))
    .output(
      z.object({
        user: publicUserOutput(),
        permission: z.enum(["none", "read", "write", "admin", "owner"]),
        grants: z.array(
          z.object({
            via: z.enum(["owner", "org", "team", "collaborator", "public"]),
            name: z.string().optional(),
            permission: z.enum(["read", "write", "admin", "owner"]),
          }),
        ),
      }),
    )
    .query(async ({ ctx, input }) => explainPermission(ctx.identity, input)),

  teamProjects: authedProcedure
    .meta({
      openapi: { method: "GET", path: TEAM_PROJECTS, tags, summary: "Projects a team is granted, with the grant" },
      errors: { 403: [] },
    })
    .input(z.object(teamParams()))
    .output(z.object({ projects: z.array(z.object({ path: z.string(), permission: grantPermission() })) }))
    .query(async ({ ctx, input }) => ({ projects: await listTeamProjects(ctx.identity, input) })),

  putTeamProject: userProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${TEAM_PROJECTS}/{slug}`,
        tags,
        summary: "Grant a team read, write or admin on a project of its organization (org admins)",
      },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(z.object({ ...teamParams(), slug: pathSegment(), permission: grantPermission() }))
    .output(z.object({ path: z.string(), permission: grantPermission() }))
    .mutation(async ({ ctx, input }) => putTeamProject(ctx.identity, input)),

  removeTeamProject: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${TEAM_PROJECTS}/{slug}`,
        tags,
        summary: "Take a team's grant on a project away (org admins)",
      },
    })
    .input(z.object({ ...teamParams(), slug: pathSegment() }))
    .output(z.object({ path: z.string(), removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => ({
      ...(await removeTeamProject(ctx.identity, input)),
      removed: true as const,
    })),
});
