import { z } from "zod";
import { authedProcedure, publicProcedure, router } from "@/server/trpc";
import { nameSlug, pathSegment, text, namedSchema } from "@/server/http";
import { fileMapInput, projectParams, projectPath, workspaceRemote } from "@/server/projects";
import { commitToWorkspace, createWorkspace, listWorkspaces, workspaceView } from "./service";
import { workspaceKeysRouter } from "./keys-router";

const tags = ["workspaces"];
const COLLECTION = "/workspaces/{namespace}/{slug}/workspaces";

const workspaceOutput = namedSchema("Workspace", () =>
  z.object({
    id: z.string(),
    name: z.string(),
    remote: z.string(),
    createdById: z.string().nullable(),
    createdByAgentId: z.string().nullable(),
    createdAt: z.string(),
  }),
);

export const workspacesRouter = router({
  create: authedProcedure
    .meta({
      openapi: { method: "POST", path: COLLECTION, tags, summary: "Fork the project into a workspace (writers)" },
      successStatus: 201,
      errors: { 409: ["CONFLICT", "TARGET_DELETING"] },
      workspaceKey: true,
    })
    .input(z.object({ ...projectParams(), name: nameSlug().optional() }))
    .output(
      z.object({
        workspace: z.string(),
        remote: z.string(),
        namespace: z.string(),
        slug: z.string(),
        path: z.string(),
        id: z.string(),
      }),
    )
    .mutation(async ({ input, ctx }) => {
      const { project, workspace } = await createWorkspace(ctx.identity, input, input.name);
      return {
        workspace: workspace.name,
        remote: workspaceRemote(project, workspace.name),
        namespace: project.namespace,
        slug: project.slug,
        path: projectPath(project),
        id: workspace.id,
      };
    }),

  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: COLLECTION,
        tags,
        summary: "The project's workspaces (anonymous on public projects)",
      },
    })
    .input(z.object(projectParams()))
    .output(
      z.object({ namespace: z.string(), slug: z.string(), path: z.string(), workspaces: z.array(workspaceOutput()) }),
    )
    .query(async ({ input, ctx }) => {
      const { project, workspaces } = await listWorkspaces(ctx.identity, input);
      return {
        namespace: project.namespace,
        slug: project.slug,
        path: projectPath(project),
        workspaces: workspaces.map((w) => workspaceView(project, w)),
      };
    }),

  commit: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/workspaces/{name}/commit",
        tags,
        summary: "Write a file map (null deletes) as one workspace commit",
      },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
      workspaceKey: true,
    })
    .input(
      z.object({
        name: pathSegment(),
        projectId: z.string().min(1),
        message: text().min(1),
        files: fileMapInput({ allowDeletes: true }),
      }),
    )
    .output(
      z.object({
        workspace: z.string(),
        projectId: z.string(),
        path: z.string(),
        branch: z.string(),
        commit: z.string(),
        parent: z.string().nullable(),
        files: z.number().int(),
      }),
    )
    .mutation(({ input, ctx }) => commitToWorkspace(ctx.identity, input)),

  keys: workspaceKeysRouter,
});
