// `npm start`: the production server (front.mjs), loaded once the heap's flags are set. V8 grows the
// young generation while modules load, and a maximum set afterwards does not shrink it: with the
// flags set by a static import beside the server's own, Node 24 ran the server with a young
// generation of 8 MB where the flags mean 2 (heap-flags.mjs).
import "./heap-flags.mjs";

await import("./front.mjs");
