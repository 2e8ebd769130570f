import { db } from "@/server/db";
import { actingUserId, type Identity } from "@/server/auth";

/**
 * The organizations a user belongs to that `viewer` may see: an organization is shown to its
 * members only (others get 404 from its routes), so all of them to the user, the shared ones to anyone else.
 */
export async function sharedOrgsOf(viewer: Identity, userId: string): Promise<Array<{ slug: string; name: string }>> {
  const viewerId = actingUserId(viewer);
  if (!viewerId) return [];
  const orgs = await (
    await db()
  ).organization.findMany({
    where: {
      members: { some: { userId } },
      ...(viewerId === userId ? {} : { AND: { members: { some: { userId: viewerId } } } }),
    },
    select: { slug: true, name: true },
    orderBy: { slug: "asc" },
  });
  return orgs;
}
