// `npm start`: the production server (front.mjs), loaded once the heap's flags are set. V8 grows the
// young generation while modules load, and a maximum set afterwards does not shrink it: set after
// the server's imports, Node 24 ran it at 8 MB where the flags mean 2, and imported first beside
// them, at 4 (ESM loads and links every static import before it runs any; heap-flags.mjs).
import "./heap-flags.mjs";

await import("./front.mjs");
