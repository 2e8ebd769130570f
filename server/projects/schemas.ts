import { z } from "zod";
import { namespaceSegment, pathSegment, namedSchema } from "@/server/http";

// Built per use: trpc-to-openapi mutates shared schema instances (see server/http/params.ts).

/** `{namespace}/{slug}` path params: `@alice` arrives as `alice`. */
export const projectParams = () => ({ namespace: namespaceSegment(), slug: pathSegment() });

/** A file map in a request body: path to text content; null deletes (commits only). */
export const fileMapInput = (options: { allowDeletes: boolean }) =>
  z.record(z.string(), options.allowDeletes ? z.string().nullable() : z.string());

/** The longest description a project keeps (GitHub's limit). */
export const PROJECT_DESCRIPTION_MAX = 350;

export const projectOutput = namedSchema("Project", () =>
  z.object({
    id: z.string(),
    name: z.string(),
    namespace: z.string(),
    slug: z.string(),
    path: z.string(),
    remote: z.string(),
    description: z.string(),
    visibility: z.enum(["private", "public"]),
    defaultBranch: z.string(),
    source: z.object({ provider: z.string().nullable(), url: z.string() }).nullable(),
    owner: z.object({ kind: z.enum(["user", "org"]), id: z.string() }),
    deleting: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

/** The 201 body of POST /api/projects: exactly these fields (zod strips the rest of the record). */
export const projectCreateOutput = namedSchema("ProjectCreated", () =>
  projectOutput()
    .pick({ id: true, name: true, namespace: true, slug: true, path: true, remote: true, visibility: true })
    .extend({ commit: z.string() }),
);
