import fs from "node:fs";
import { writeFileAtomically } from "./loose";

/**
 * A small file's text, or null when it cannot be read. Absence is checked first: the refs and
 * alternates files are usually absent, and a thrown ENOENT (its stack captured) costs more than
 * the read (three of them were a tenth of a 304's CPU).
 */
export function readTextIfPresent(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/**
 * The file system isomorphic-git works through: synchronous calls behind promises (async `fs`
 * calls cost ~0.28 ms each here, most of isomorphic-git's time; sync ones ~0.01 ms), and
 * atomic writes (temp file + rename), so a concurrent reader never sees a half-written object.
 */
const promises = {
  // isomorphic-git probes `readFile()` without a path twice per call to tell promise file systems
  // from callback ones; answering without throwing spares two captured stacks per object read.
  readFile: async (file: string, options?: { encoding?: BufferEncoding } | BufferEncoding) =>
    file === undefined ? null : fs.readFileSync(file, options as never),
  writeFile: async (file: string, data: string | Uint8Array, options?: { mode?: number }) =>
    writeFileAtomically(file, data, ".tmp-", options?.mode),
  mkdir: async (dir: string) => {
    try {
      fs.mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  },
  rmdir: async (dir: string) => fs.rmdirSync(dir),
  unlink: async (file: string) => fs.unlinkSync(file),
  stat: async (file: string) => fs.statSync(file),
  lstat: async (file: string) => fs.lstatSync(file),
  readdir: async (dir: string) => fs.readdirSync(dir),
  readlink: async (file: string) => fs.readlinkSync(file),
  symlink: async (target: string, file: string) => fs.symlinkSync(target, file),
};

export const gitFs = { promises };
