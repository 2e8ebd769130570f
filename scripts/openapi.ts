// `npm run openapi`: writes the OpenAPI document the procedures generate to client/openapi.json
// (for the default BASE_URL, so the file does not depend on who runs it) and the SDK's types from
// it (client/schema.d.ts). CI runs it and fails when either differs from the committed files.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

process.env.BASE_URL = "http://localhost:3000";
process.env.PORT = "3000";
const { openApiDocument } = await import("@/server/api");

const root = path.resolve(import.meta.dirname, "..");
const documentPath = path.join(root, "client/openapi.json");
fs.writeFileSync(documentPath, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
const generated = spawnSync(
  "npx",
  ["openapi-typescript", documentPath, "--output", path.join(root, "client/schema.d.ts")],
  { cwd: root, stdio: "inherit" },
);
process.exit(generated.status ?? 1);
