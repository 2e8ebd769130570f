import { z } from "zod";
import { authedProcedure, publicProcedure, router, userProcedure, FORM_OR_JSON } from "@/server/trpc";
import { booleanish, nameSlug, text } from "@/server/http";
import { projectPath } from "./access";
import { PROJECT_DESCRIPTION_MAX, projectCreateOutput, projectOutput, projectParams } from "./schemas";
import type { Identity } from "@/server/auth";
import { createProject, getProject, listProjects, projectRowVersion } from "./service";
import { updateProjectSettings } from "./settings";
import { readPolicyFile, writePolicyFile } from "./policy-file";
import type { Policy } from "@/server/policy";
import { projectView } from "./view";

const tags = ["projects"];
/** The longest policy file the page commits (a policy is a few hundred bytes). */
const POLICY_TEXT_MAX = 64 * 1024;
const PROJECT = "/projects/{namespace}/{slug}";
/** The ETag of a project: its row's version. */
const projectVersion = (identity: Identity, input: { namespace: string; slug: string }) =>
  projectRowVersion(identity, input);

export const projectsRouter = router({
  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/projects",
        tags,
        summary: "Create a project (form: 302 to its page)",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 201,
      errors: { 404: [], 409: ["CONFLICT", "NAMESPACE_TAKEN", "TARGET_DELETING"] },
    })
    .input(
      z.object({
        name: nameSlug(),
        visibility: z.enum(["private", "public"]).default("private"),
        files: z.record(z.string(), z.string()).optional(),
        seed: booleanish().optional(),
        org: text().min(1).optional(),
      }),
    )
    .output(projectCreateOutput())
    .mutation(async ({ input, ctx }) => {
      const { project, commit } = await createProject(ctx.identity, input);
      ctx.response.redirect = `/${projectPath(project)}`;
      return { ...projectView(project), commit };
    }),

  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/projects",
        tags,
        summary: "Projects the caller can read (empty for anonymous callers)",
      },
    })
    .input(z.object({}))
    .output(z.object({ projects: z.array(projectOutput()) }))
    .query(async ({ ctx }) => ({ projects: (await listProjects(ctx.identity)).map(projectView) })),

  get: publicProcedure
    .meta({
      openapi: { method: "GET", path: PROJECT, tags, summary: "One project (anonymous on public projects)" },
      etag: projectVersion,
    })
    .input(z.object(projectParams()))
    .output(projectOutput())
    .query(async ({ input, ctx }) => projectView(await getProject(ctx.identity, input, ctx.setVersion))),

  update: userProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: PROJECT,
        tags,
        summary: "Change a project's name, description, visibility or default branch (admins)",
      },
      errors: { 409: ["CONFLICT", "TARGET_DELETING", "IMPORT_IN_PROGRESS"] },
    })
    .input(
      z.object({
        ...projectParams(),
        name: nameSlug().optional(),
        description: text().max(PROJECT_DESCRIPTION_MAX).optional(),
        visibility: z.enum(["private", "public"]).optional(),
        defaultBranch: text().min(1).max(255).optional(),
      }),
    )
    .output(projectOutput())
    .mutation(async ({ input: { namespace, slug, ...settings }, ctx }) =>
      projectView(await updateProjectSettings(ctx.identity, { namespace, slug }, settings)),
    ),

  // No REST route: the policy page reads and commits it in-process (typed callers through /api/trpc).
  policy: publicProcedure
    .input(z.object(projectParams()))
    .output(
      z.object({
        path: z.string(),
        branch: z.string(),
        commit: z.string(),
        text: z.string().nullable(),
        policy: z.custom<Policy>((value) => typeof value === "object" && value !== null).nullable(),
        error: z.string().nullable(),
      }),
    )
    .query(({ input, ctx }) => readPolicyFile(ctx.identity, input)),

  writePolicy: userProcedure
    .input(
      z.object({
        ...projectParams(),
        text: text().max(POLICY_TEXT_MAX),
        expectedCommit: z.string().regex(/^[0-9a-f]{40}$/, "must be a full commit id"),
        message: text().max(200).optional(),
      }),
    )
    .output(z.object({ commit: z.string() }))
    .mutation(({ input: { namespace, slug, ...edit }, ctx }) =>
      writePolicyFile(ctx.identity, { namespace, slug }, edit),
    ),
});

export { repositoryRouter } from "./repository-router";
export { projectAccessRouter } from "./access-router";
