import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// chunk-release.mjs in a process of its own (a hook on Node's module loader, and a full GC): a
// stand-in for Turbopack's runtime, at the build's path, loads a chunk the way it does.
describe("the production server's chunk release", () => {
  it("lets a loaded chunk's exports be collected, and keeps the runtime and every other module cached", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-chunks-"));
    const chunks = path.join(dir, ".next", "server", "chunks");
    fs.mkdirSync(path.join(chunks, "ssr"), { recursive: true });
    const runtime = path.join(chunks, "[turbopack]_runtime.js");
    // Keeps the factories it installs, never the chunk's exports.
    fs.writeFileSync(
      runtime,
      `const factories = new Map();
      module.exports = (file) => {
        const modules = require(file);
        for (let i = 0; i < modules.length; i += 2) if (!factories.has(modules[i])) factories.set(modules[i], modules[i + 1]);
        return new WeakRef(modules);
      };`,
    );
    const chunk = (name: string) => {
      const file = path.join(chunks, name);
      fs.writeFileSync(file, `module.exports = [1, () => "one", 2, () => "two"];`);
      return file;
    };
    const other = path.join(dir, "library.js");
    fs.writeFileSync(other, `module.exports = { library: true };`);
    const script = path.join(dir, "script.mjs");
    fs.writeFileSync(
      script,
      `import { createRequire } from "node:module";
      import { releaseLoadedChunks } from ${JSON.stringify(path.resolve("chunk-release.mjs"))};
      releaseLoadedChunks();
      const require = createRequire(import.meta.url);
      const load = require(${JSON.stringify(runtime)});
      const refs = [load(${JSON.stringify(chunk("a._.js"))}), load(${JSON.stringify(chunk("ssr/b._.js"))})];
      require(${JSON.stringify(other)});
      await new Promise((resolve) => setTimeout(resolve, 0));
      globalThis.gc();
      console.log(JSON.stringify({
        collected: refs.map((ref) => ref.deref() === undefined),
        cached: Object.keys(require.cache).map((file) => file.slice(${JSON.stringify(dir.length)})).sort(),
      }));`,
    );
    const run = spawnSync(process.execPath, ["--expose-gc", script], { encoding: "utf8", timeout: 30_000 });
    fs.rmSync(dir, { recursive: true });
    expect(run.stderr).toBe("");
    const { collected, cached } = JSON.parse(run.stdout) as { collected: boolean[]; cached: string[] };
    expect(collected).toEqual([true, true]);
    expect(cached).toEqual(["/.next/server/chunks/[turbopack]_runtime.js", "/library.js"]);
  });
});
