// Replaces a build or dependency file as a new file, not by a write in place: a build copied with
// hard links (the benchmarks' copies) shares its files' inodes, and a write in place would change
// every copy.
import fs from "node:fs";

export function writeByRename(file, text) {
  fs.writeFileSync(`${file}.new`, text);
  fs.renameSync(`${file}.new`, file);
}
