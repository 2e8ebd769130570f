// Reading code without cloning (docs/contracts.md#reading-code): diffs, commits, compare, search, blame, tags,
// archives, raw files, one branch. The area's front door.
export { between, diffCommits, sinceFork, unifiedDiffStream, EMPTY_TREE } from "./diff";
export type { DiffFile, DiffOptions, DiffPage, DiffTotals } from "./diff";
export { diffContextInput, diffFileOutput, diffPageInput, diffTotalsOutput } from "./schemas";
export { projectArchive, archiveEtag, ARCHIVE_FORMATS, type Archive, type ArchiveFormat } from "./archive";
export { rawFile, rawContentType } from "./raw";
export { readableRepo } from "./at";
