// The npm registry reachable here lacks Next's darwin/win32 SWC packages, so `npm install` writes a
// lock without them and `npm ci` then refuses the lock as out of sync. Run this after any
// `npm install` to record them (as optional, OS-specific packages that Linux never fetches).
import fs from "node:fs";

const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
const next = lock.packages["node_modules/next"];
const platforms = { darwin: ["darwin"], win32: ["win32"] };
for (const [name, version] of Object.entries(next.optionalDependencies ?? {})) {
  const match = /^@next\/swc-(darwin|win32)-(arm64|x64)/.exec(name);
  const key = `node_modules/${name}`;
  if (!match || lock.packages[key]) continue;
  lock.packages[key] = {
    version,
    cpu: [match[2]],
    license: "MIT",
    optional: true,
    os: platforms[match[1]],
    engines: { node: ">= 10" },
  };
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
fs.writeFileSync("package-lock.json", `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
