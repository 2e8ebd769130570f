// Run by `npm install` (postinstall). Next.js's router looks every request's path up in the build's
// files (`getItem` in router-utils/filesystem.js) and keeps the answer, found or not, in a cache of
// 8 MB by its own estimate (128 bytes an entry plus its path): ~45,000 paths, ~190 bytes each
// measured in a heap snapshot. Under a fleet every change brings new URLs, so the cache fills
// to its bound and stays there, ~8.5 MB of the heap for lookups that are rarely asked again (a
// change's URLs) and cost a few Set reads when they are. 1 MB keeps every page's and static file's
// path and the last few thousand others (docs/soak, round 30). Next.js has no setting for it
// (16.4). Install fails here when an upgrade changes the line (scripts/exact-edits.mjs).
import path from "node:path";
import { applyExactEdits } from "./exact-edits.mjs";

/** Usage: node scripts/patch-next-router.mjs [Next.js's dist folder, the installed one's by default] */
const dist = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../node_modules/next/dist"));
const FILES = ["server/lib/router-utils/filesystem.js", "esm/server/lib/router-utils/filesystem.js"];
const EDITS = [
  [
    "const FS_LRU_MAX_SIZE = 8 * 1024 * 1024;",
    "const FS_LRU_MAX_SIZE = 1 * 1024 * 1024; // svc-forge: scripts/patch-next-router.mjs",
    1,
  ],
];

for (const file of FILES)
  applyExactEdits(path.join(dist, file), EDITS, { label: "patch-next-router", dependency: "Next.js" });
