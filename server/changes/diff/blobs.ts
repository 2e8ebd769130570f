import { readBlob, runGitBytes, type Repo } from "@/server/git";
import { IN_PROCESS_DIFF_FILES_MAX } from "./tree-diff";

/**
 * Reads many blobs: a few in-process, more with one `git cat-file --batch` (one spawn for the whole
 * diff instead of an in-process read per blob). The repository's alternates are honoured.
 */
export async function readBlobs(repo: Repo, oids: string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return new Map();
  if (unique.length <= IN_PROCESS_DIFF_FILES_MAX) {
    return new Map(
      await Promise.all(unique.map(async (oid) => [oid, Buffer.from(await readBlob(repo, oid))] as const)),
    );
  }
  const { stdout } = await runGitBytes(["cat-file", "--batch"], {
    gitdir: repo.gitdir,
    input: `${unique.join("\n")}\n`,
  });
  return parseBatch(stdout);
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
