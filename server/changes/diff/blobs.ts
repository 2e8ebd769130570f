import { spawn } from "node:child_process";
import type { Repo } from "@/server/git";

/**
 * Reads many blobs with one `git cat-file --batch` (one spawn for the whole diff instead of an
 * in-process read per blob). The repository's alternates are honoured by git itself.
 */
export function readBlobs(repo: Repo, oids: string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return Promise.resolve(new Map());
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", repo.gitdir, "cat-file", "--batch"], {
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => errors.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`git cat-file failed (${code}): ${Buffer.concat(errors).toString()}`));
      try {
        resolve(parseBatch(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(`${unique.join("\n")}\n`);
  });
}

function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const header = out.subarray(at, eol).toString("latin1");
    const [oid, type, size] = header.split(" ");
    if (type === "missing") throw new Error(`Object ${oid} is missing`);
    const length = Number(size);
    blobs.set(oid, out.subarray(eol + 1, eol + 1 + length));
    at = eol + 1 + length + 1;
  }
  return blobs;
}
