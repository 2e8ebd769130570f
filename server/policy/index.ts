// The area's front door: other areas import from here, never from inside the area.
export { pathMatcher } from "./glob";
export { loadPolicy } from "./load";
export { parsePolicy, POLICY_PATH } from "./parse";
export type { PolicyResult } from "./parse";
export type {
  DeployEntry,
  DiffPolicy,
  EvaluationPolicy,
  LlmPolicy,
  Policy,
  SandboxPolicy,
  WebhookPolicy,
} from "./schema";
