import { processLauncher, type LaunchOptions, type LaunchStep, type Launched } from "@/server/processes";
import { joinLauncherGroup } from "./cgroups";

export { launcherLost, type Launched } from "@/server/processes";

/** Every process a run starts is started by the runners' launcher, which works in the runs' cgroup (cgroups.ts). */
const runnersLauncher = processLauncher({ name: "runners", onStarted: joinLauncherGroup });

/** Starts `steps` in the runners' launcher (see LaunchOptions); `exited` rejects only if the launcher itself fails. */
export function launch(steps: LaunchStep[], options: LaunchOptions = {}): Launched {
  return runnersLauncher.launch(steps, options);
}

/** Runs one tool (`rm`, `cp -al`, ...) in the launcher; throws with its stderr unless it exits 0. */
export async function runTool(command: string, args: string[]): Promise<void> {
  let stderr = "";
  const [exit] = await launch([{ command, args }], { onOutput: (chunk) => (stderr += chunk.toString("utf8")) }).exited;
  if (exit.code !== 0)
    throw new Error(`${command} failed (${exit.error ?? exit.signal ?? exit.code}): ${stderr.trim().slice(0, 500)}`);
}
