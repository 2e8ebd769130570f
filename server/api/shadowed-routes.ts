import { z } from "zod";
import { changeListFilter, pageOfChanges } from "@/server/changes";
import type { Context } from "@/server/trpc";

/**
 * Routes trpc-to-openapi cannot reach: it takes the first route whose pattern matches, and an
 * earlier one matches these URLs too. GET /projects/{projectId}/changes (changes.listByProjectId)
 * has the shape of GET /projects/{namespace}/{slug} for a project named "changes"; a namespace
 * starts with @ and a project id never does, so the id form is answered here.
 */
const SHADOWED: Array<{
  method: string;
  pattern: RegExp;
  answer: (ctx: Context, params: Record<string, string>, query: Record<string, string>) => Promise<unknown>;
}> = [
  {
    method: "GET",
    pattern: /^\/projects\/(?<projectId>[^@/][^/]*)\/changes\/?$/,
    answer: (ctx, { projectId }, query) => {
      const filter = z.object(changeListFilter()).parse(query);
      return pageOfChanges(ctx, { id: projectId }, filter);
    },
  },
];

/** The answer of a shadowed route, or undefined when the request is not one. */
export async function answerShadowedRoute(
  method: string,
  apiPath: string,
  search: URLSearchParams,
  ctx: Context,
): Promise<{ body: unknown } | undefined> {
  for (const route of SHADOWED) {
    const match = route.method === method ? route.pattern.exec(apiPath) : null;
    if (!match?.groups) continue;
    const params = Object.fromEntries(
      Object.entries(match.groups).map(([name, value]) => [name, decodeURIComponent(value)]),
    );
    return { body: await route.answer(ctx, params, Object.fromEntries(search)) };
  }
  return undefined;
}
