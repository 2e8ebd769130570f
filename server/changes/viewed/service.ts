import { actingUserId, type Identity, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { loadChange } from "../load";

/**
 * The files the caller marked viewed on a change, while the change's tip is the one they saw: a
 * new tip (a push to the workspace, an update) asks for a fresh look, as GitHub's "viewed" does
 * when a file changes. Anonymous callers and agents have none.
 */
export async function viewedFiles(identity: Identity, changeId: string): Promise<string[]> {
  const { change } = await loadChange(identity, changeId);
  const userId = identity.kind === "user" ? actingUserId(identity) : null;
  if (!userId) return [];
  const rows = await (
    await db()
  ).viewedFile.findMany({
    where: { userId, changeId: change.id, tipSha: change.tipSha },
    select: { path: true },
    orderBy: { path: "asc" },
  });
  return rows.map((row) => row.path);
}

/** Marks one file of a change viewed at its current tip, or clears the mark. Read access is enough. */
export async function setViewed(
  identity: UserIdentity,
  changeId: string,
  path: string,
  viewed: boolean,
): Promise<{ path: string; viewed: boolean }> {
  const { change } = await loadChange(identity, changeId);
  const prisma = await db();
  const key = { userId_changeId_path: { userId: identity.userId, changeId: change.id, path } };
  if (viewed) {
    await prisma.viewedFile.upsert({
      where: key,
      create: { userId: identity.userId, changeId: change.id, path, tipSha: change.tipSha },
      update: { tipSha: change.tipSha },
    });
  } else {
    await prisma.viewedFile.deleteMany({ where: { userId: identity.userId, changeId: change.id, path } });
  }
  return { path, viewed };
}
