// The area's front door for scripts (instrumentation.ts imports ./start itself).
export { protectDataDir } from "./data-dir";
