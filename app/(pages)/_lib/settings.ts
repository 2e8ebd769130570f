import "server-only";
import { forbidden } from "next/navigation";
import { atLeast, loadProject, type ProjectRouteParams } from "./project";
import { requireUser } from "./session";

/** A settings page: signed-in users only (else /login), readers of the project (else 404), at `need` (else the 403 page). */
export async function loadSettings(params: ProjectRouteParams, need: "write" | "admin") {
  await requireUser();
  const loaded = await loadProject(params);
  if (!atLeast(loaded.level, need)) forbidden();
  return loaded;
}
