import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";

export const MANIFEST = "manifest.json";
export const MANIFEST_FORMAT = 1;

export interface ManifestRepository {
  projectId: string;
  workspace?: string;
  /** The branch HEAD names. */
  head: string;
  /** Every ref as read at the snapshot, refs/svc/* included. */
  refs: Record<string, string>;
  /** Where its history is cut (a shallow import and its forks), read with the refs; absent when whole. */
  shallow?: string[];
  /** The bundle's path in the archive, or null when the fork has no object of its own. */
  bundle: string | null;
  sha256: string | null;
}

export interface Manifest {
  format: number;
  createdAt: string;
  serviceVersion: string;
  database: { tables: Record<string, number> };
  repositories: ManifestRepository[];
}

/** tar-stream, loaded by the first backup or restore rather than by every server. */
const loadTar = async () => (await import("tar-stream")).default;

/** The archive's members, in the order written: the manifest first, so a reader meets it before the rest. */
export async function packArchive(stagingDir: string, members: string[], outFile: string): Promise<void> {
  const pack = (await loadTar()).pack();
  const written = pipeline(pack, fs.createWriteStream(outFile, { mode: 0o600 }));
  for (const member of members) {
    const file = path.join(stagingDir, member);
    const { size } = fs.statSync(file);
    await new Promise<void>((resolve, reject) => {
      const entry = pack.entry({ name: member, size, mode: 0o644 }, (error) => (error ? reject(error) : resolve()));
      fs.createReadStream(file).on("error", reject).pipe(entry);
    });
  }
  pack.finalize();
  await written;
}

/** A member name we accept: relative, no `..`, only the characters our own archives use. */
const SAFE_MEMBER = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._@/-]+$/;

/**
 * Extracts the regular files of an archive under `dir`; anything else (links, devices, names that
 * could escape `dir`) makes it invalid. Returns the member names.
 */
export async function unpackArchive(source: NodeJS.ReadableStream, dir: string, maxBytes: number): Promise<string[]> {
  const extract = (await loadTar()).extract();
  const members: string[] = [];
  let total = 0;
  extract.on("entry", (header, stream, next) => {
    const fail = (message: string) => {
      stream.resume();
      extract.destroy(new Error(message));
    };
    if (header.type === "directory") {
      stream.resume();
      stream.on("end", next);
      return;
    }
    if (header.type !== "file" || !SAFE_MEMBER.test(header.name))
      return fail(`unexpected archive member ${JSON.stringify(header.name)}`);
    total += header.size ?? 0;
    if (total > maxBytes) return fail(`archive over ${maxBytes} bytes`);
    const target = path.join(dir, header.name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    members.push(header.name);
    pipeline(stream, fs.createWriteStream(target)).then(
      () => next(),
      (error: Error) => extract.destroy(error),
    );
  });
  await pipeline(source, extract);
  return members;
}
