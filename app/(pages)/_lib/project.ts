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
  const project = await read(() => api.projects.get({ namespace: address.namespace, slug: address.slug }));
  const level: Level = identity.kind === "anonymous" ? "read" : (await api.projectAccess.permission({ namespace: address.namespace, slug: address.slug })).permission;
  return { ...address, project, level, identity, api };
}
