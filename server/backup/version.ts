import fs from "node:fs";
import path from "node:path";

let version: string | undefined;

/** The running service's version (package.json), recorded in every manifest. */
export function serviceVersion(): string {
  version ??= String(
    (JSON.parse(fs.readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string }).version ??
      "unknown",
  );
  return version;
}
