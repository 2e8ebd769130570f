import path from "node:path";
import { config } from "@/server/config";

/** Layout under REPOS_DIR: one folder per project id holding the project and its workspace forks. */
export const projectRepoPath = (projectId: string) => path.join(config.reposDir, projectId, "project.git");
export const workspaceRepoPath = (projectId: string, workspaceName: string) =>
  path.join(config.reposDir, projectId, "workspaces", `${workspaceName}.git`);
export const projectDir = (projectId: string) => path.join(config.reposDir, projectId);
