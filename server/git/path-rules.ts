/**
 * Git's own rules for the names a tree may hold (read-cache.c `verify_path`, with `core.protectNTFS`
 * and `core.protectHFS`, which git applies on every platform): a name that some file system would
 * take for `.git` is refused, as is a backslash (a directory separator on Windows). isomorphic-git
 * refuses to read a tree holding such a name, so letting one in would break every later read.
 */

// Code points HFS+ ignores when comparing names (git's utf8.c `next_hfs_char`).
const HFS_IGNORABLE = new Set([
  0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e,
  0x206f, 0xfeff,
]);

const withoutHfsIgnorables = (name: string) =>
  [...name].filter((ch) => !HFS_IGNORABLE.has(ch.codePointAt(0) ?? 0)).join("");

/** `.git` as NTFS sees it: trailing dots and spaces dropped, an alternate data stream (`:`) cut off, or the 8.3 short name `GIT~1`. */
const NTFS_DOTGIT = /^(?:\.git|git~1)[. ]*(?::.*)?$/;

/** Whether a path segment names the repository's own `.git` on Windows, macOS or Linux. */
export function isDotGitSpelling(segment: string): boolean {
  const lower = segment.toLowerCase();
  return lower === ".git" || withoutHfsIgnorables(lower) === ".git" || NTFS_DOTGIT.test(lower);
}

/** Why git would refuse this path segment, or undefined when it is acceptable. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "empty segment (leading, trailing or double slash)";
  if (segment === "." || segment === "..") return "relative segment";
  if (segment.includes("\\")) return "a backslash is a directory separator on Windows";
  if (isDotGitSpelling(segment)) return ".git is reserved (in any spelling a file system would read as .git)";
  return undefined;
}
