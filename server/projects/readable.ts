import type { Project } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import type { Identity } from "@/server/auth";
import { listProjects } from "./service";

/** The ids of the projects `viewer` may read beyond the public ones (those it owns or is granted). */
export async function grantedProjectIds(viewer: Identity): Promise<string[]> {
  return (await listProjects(viewer)).map((project) => project.id);
}

/** The projects a user owns that `viewer` may read (the public ones, and the private ones granted to the viewer), by name. */
export async function projectsOwnedBy(viewer: Identity, ownerUserId: string): Promise<Project[]> {
  const granted = await grantedProjectIds(viewer);
  return (await db()).project.findMany({
    where: { ownerUserId, deletingAt: null, OR: [{ visibility: "public" }, { id: { in: granted } }] },
    orderBy: { slug: "asc" },
  });
}
