import "server-only";
import { notFound } from "next/navigation";
import { read, session } from "./session";

export interface ProjectRouteParams {
  namespace: string;
  slug: string;
}

type Level = "none" | "read" | "write" | "admin" | "owner";
const ORDER: Level[] = ["none", "read", "write", "admin", "owner"];
export const atLeast = (level: Level, need: Level) => ORDER.indexOf(level) >= ORDER.indexOf(need);

/** `/@ns/slug` arrives as `%40ns` (or `@ns`): anything else under a two-segment path is no project page. */
export function projectAddress(params: ProjectRouteParams): { namespace: string; slug: string; base: string } {
  const namespace = decodeURIComponent(params.namespace);
  if (!namespace.startsWith("@") || namespace.length < 2) notFound();
  const slug = decodeURIComponent(params.slug);
  return { namespace, slug, base: `/${namespace}/${encodeURIComponent(slug)}` };
}

/** The project the caller may read (else the not-found page) and the caller's level on it. */
export async function loadProject(params: ProjectRouteParams) {
  const address = projectAddress(params);
  const { identity, api } = await session();
  const ref = { namespace: address.namespace, slug: address.slug };
  // Both at once: each refuses a project the caller cannot read, and read() turns either refusal into its page.
  const [project, level] = await read(() =>
    Promise.all([
      api.projects.get(ref),
      identity.kind === "anonymous"
        ? ("read" as const)
        : api.projectAccess.permission(ref).then((answer): Level => answer.permission),
    ]),
  );
  return { ...address, project, level, identity, api };
}
