#!/usr/bin/env node
// The `svc-forge` command: runs the TypeScript CLI through tsx (a dependency), no build step.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
