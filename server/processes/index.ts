export {
  launcherLost,
  type ConnectOptions,
  type Connected,
  processLauncher,
  type LaunchOptions,
  type LaunchStep,
  type Launched,
  type LauncherOptions,
  type ProcessLauncher,
  type StepExit,
} from "./launcher";
