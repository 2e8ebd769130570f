import { z } from "zod";
import { boundedInt, listOffset, namedSchema } from "@/server/http";
import { DIFF_CONTEXT_DEFAULT, DIFF_CONTEXT_MAX, DIFF_FILES_DEFAULT, DIFF_FILES_MAX } from "@/server/limits";

export const person = () => z.object({ name: z.string(), email: z.string(), date: z.string() });

export const diffFileOutput = namedSchema("DiffFile", () =>
  z.object({
    path: z.string(),
    previousPath: z.string().nullable(),
    status: z.enum(["added", "modified", "deleted", "renamed"]),
    additions: z.number().int(),
    deletions: z.number().int(),
    binary: z.boolean(),
    patch: z.string().nullable(),
    tooLarge: z.boolean(),
  }),
);

export const diffTotalsOutput = namedSchema("DiffTotals", () =>
  z.object({ files: z.number().int(), additions: z.number().int(), deletions: z.number().int() }),
);

export const commitLogEntryOutput = namedSchema("CommitLogEntry", () =>
  z.object({
    sha: z.string(),
    message: z.string(),
    parents: z.array(z.string()),
    author: person(),
    committer: person(),
  }),
);

/** A page of a diff's files: `limit` (default 100, max 300) and `offset`. */
export const diffPageInput = () => ({ limit: boundedInt(1, DIFF_FILES_MAX, DIFF_FILES_DEFAULT), offset: listOffset() });

/** Lines of context around each change (git's -U: default 3, max 20). */
export const diffContextInput = () => boundedInt(0, DIFF_CONTEXT_MAX, DIFF_CONTEXT_DEFAULT);

export const tagOutput = namedSchema("Tag", () =>
  z.object({
    name: z.string(),
    commit: z.string(),
    annotated: z.boolean(),
    message: z.string().optional(),
    tagger: person().optional(),
  }),
);
