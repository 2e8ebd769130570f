#!/usr/bin/env node
// The root package's `svc-forge` command: runs the TypeScript CLI through tsx (a dependency of the
// server), no build step. The SDK package's bin is main.js compiled (client/package.json).
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
