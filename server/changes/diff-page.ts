import type { Identity } from "@/server/auth";
import { openProjectRepo } from "@/server/git";
import { DIFF_PAGE_FILES } from "@/server/limits";
import { loadChange } from "./load";
import { changePatchPage } from "./diff/patch";

/** One page of a change's diff with hunks, for readers of its project (404 otherwise). */
export async function changeDiffPage(identity: Identity, id: string, page: number) {
  const { change, project } = await loadChange(identity, id, "read");
  const offset = (page - 1) * DIFF_PAGE_FILES;
  const { totalFiles, files } = await changePatchPage(openProjectRepo(project.id), change.baseSha, change.tipSha, { offset, limit: DIFF_PAGE_FILES });
  return { changeId: change.id, page, pageSize: DIFF_PAGE_FILES, totalFiles, files };
}
