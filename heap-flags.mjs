// The production server's V8 heap and compiler settings, set when this module is evaluated:
// server.mjs imports it alone and loads the server after. V8 grows the young generation while modules load and link (to
// 8 MB on Node 24 by the time server.mjs's imports ran), and a maximum set afterwards does not shrink
// it: the server ran under load with 8 MB where these flags mean 2 (docs/soak, round 22).
import v8 from "node:v8";

// V8's defaults favour throughput over resident memory, and a request allocates much and keeps
// little. Left alone, the old generation grows to several times the live heap (868 MB resident after
// 20,000 requests against about 120 MB live) and the young generation to 16 MB per semi-space. A
// growth factor of 1.25 keeps the server near its live size at no measurable cost in CPU per request
// (bench/users-me) or changes landed (bench/soak); the heap still grows as far as it needs to. Under
// 3 minutes of 50 agents the heap's committed size ended at 171 MB with 1.25 against 197 with 1.5.
// The young generation keeps the size it has when this runs, before the server's modules load
// (1 MB semi-spaces, tests/platform/heap-flags.test.ts): the growth factor of 1 stops it growing, and
// the 2 MB maximum bounds threads started later (RSS at the end of 3 minutes of 50 agents: 464 MB
// with V8's young generation against 416). `node --optimize-for-size server.mjs` trades rate for
// memory on a small host: 5 minutes of 50 agents side by side ended at 365 MB resident against 394,
// with 6% fewer changes landed (docs/soak).
// Not `--compact-on-every-full-gc`: on Node 20 it gave back the fragmented pages of the old
// generation (PGlite ended 8 minutes of 50 agents at 275 / 295 MB against 309 / 312), but the V8 of
// Node 22 and 24 keeps the pages a compaction frees resident until the process goes idle: after 5
// minutes of 50 agents on PGlite, Node 24 was at 389 MB with it against 330 without, Node 22 at
// 391 against 324, with JS heaps of 120-140 MB in all four; an inspector's full GC took the Node 24
// server with it from 407 to 288 MB, and 5 s of load took it back (docs/soak, round 19).
// Not Maglev, V8's middle compiler: Node 24 turns it on (Node 22 leaves it off). Under 50 agents on
// PostgreSQL its code and metadata (the code and trusted spaces) made Node 24's server 202.9 MB
// resident at minute 3 against 194.0 without it (Node 22: 192.7), and 226.6 against 218.3 after
// 34,490 changes landed (docs/soak, round 28). Hot functions still reach TurboFan.
// Not Sparkplug, V8's baseline compiler, for the same reason: its code for every warm function made
// Node 24's server 214.6 MB resident at minute 10 of 50 agents on PostgreSQL against 205.0 without it
// (docs/soak, round 30), and server CPU per landed change did not rise (bench/fleet, five pairs: a
// mean of 55.8 ms either way; bench/users-me, two pairs: 6.4-7.2 ms a request against 6.5-7.6).
const SERVER_V8_FLAGS = [
  "--heap-growing-percent=25",
  "--max-semi-space-size=2",
  "--semi-space-growth-factor=1",
  "--no-maglev",
  "--no-sparkplug",
];

function setServerV8Flags() {
  for (const flag of SERVER_V8_FLAGS) v8.setFlagsFromString(flag);
}

// The embedded database's thread gets a hook to set them again once it starts
// (server/db/pglite-thread.ts): V8 before Node 24 raises the semi-space growth factor back to 2,
// process-wide, whenever it sets up a thread's heap, and under a fleet on PGlite the young
// generation then reached 32 MB and the soak's resident size ended over 320 MB (docs/soak, round 16).
setServerV8Flags();
globalThis[Symbol.for("svc.reapplyServerHeapFlags")] = setServerV8Flags;
