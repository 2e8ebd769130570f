export {
  launcherLost,
  processLauncher,
  type LaunchOptions,
  type LaunchStep,
  type Launched,
  type LauncherOptions,
  type ProcessLauncher,
  type StepExit,
} from "./launcher";
