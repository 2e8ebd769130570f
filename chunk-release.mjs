// Lets go of the production build's server chunks once Turbopack's runtime has loaded them. The
// runtime `require`s a chunk file, installs the module factories it has no copy of yet and never
// reads the file's exports again; Node's require cache would keep them, and with them the chunk's
// source and code, for the life of the process. Turbopack writes a module into a chunk of each route
// that imports it, so a server answering several routes kept the same modules' source up to four
// times: after 4 minutes of 50 agents on PostgreSQL, two runs with the release held JS heaps of 120.9
// and 122.9 MB (217.7 and 225.4 MB resident) against 129.1 (228.7) without (docs/soak, round 22).
// A factory the runtime installed keeps what it needs. The runtime itself stays cached: every
// route's entry must share it and its module registry.
import Module from "node:module";

const CHUNK = /[\\/]\.next[\\/]server[\\/]chunks[\\/](?:ssr[\\/])?[^\\/]+\.js$/;
const RUNTIME = "[turbopack]_runtime.js";

/** From now on, a chunk file `require`d (by the runtime) is not kept in the require cache. */
export function releaseLoadedChunks() {
  const load = Module._load;
  Module._load = function loadReleasingChunks(request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    if (CHUNK.test(request) && !request.endsWith(RUNTIME))
      forget(Module._resolveFilename(request, parent, isMain), parent);
    return exports;
  };
}

function forget(filename, parent) {
  const cached = Module._cache[filename];
  if (!cached) return;
  delete Module._cache[filename];
  const at = parent?.children?.indexOf(cached) ?? -1;
  if (at >= 0) parent.children.splice(at, 1);
}
