import { z } from "zod";
import { listLimit, listOffset, text, namedSchema } from "@/server/http";
import { projectNumber, projectParams } from "@/server/projects";
import { ISSUE_QUERY_MAX, ISSUE_TITLE_MAX, LABEL_LENGTH_MAX, LABELS_MAX, TEXT_BODY_MAX } from "@/server/limits";

// Built per use: trpc-to-openapi mutates shared schema instances (see server/http/params.ts).

export const issueNumber = projectNumber;

const uuid = () => z.string().uuid();
/** A user by name. */
const username = () => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/, "must be a username");

export const issueTitle = () => text().trim().min(1, "title is required").max(ISSUE_TITLE_MAX);
export const issueBody = () => text().max(TEXT_BODY_MAX);
export const issueStatus = () => z.enum(["open", "closed"]);
export const issueLabels = () =>
  z
    .array(text().trim().min(1).max(LABEL_LENGTH_MAX))
    .max(LABELS_MAX)
    .transform((labels) => [...new Set(labels)]);

/** A change id, or null / "" to unlink (PATCH). */
export const linkedChangeRef = () => z.union([uuid(), z.literal(""), z.null()]).transform((value) => value || null);

export const createIssueInput = () =>
  z.object({
    ...projectParams(),
    title: issueTitle(),
    body: issueBody().optional(),
    linkedChangeId: z
      .union([uuid(), z.literal("")])
      .optional()
      .transform((value) => value || undefined),
  });

export const listIssuesInput = () =>
  z.object({
    ...projectParams(),
    status: issueStatus().optional(),
    label: text().max(LABEL_LENGTH_MAX).optional(),
    assignee: uuid().optional(),
    // Additive: the author's username (GitHub's `creator`).
    author: username().optional(),
    q: text().max(ISSUE_QUERY_MAX).optional(),
    limit: listLimit(),
    offset: listOffset(),
  });

export const labelsInput = () => z.object(projectParams());

export const issueRefInput = () => z.object({ ...projectParams(), number: issueNumber() });

export const patchIssueInput = () =>
  z.object({
    ...projectParams(),
    number: issueNumber(),
    title: issueTitle().optional(),
    body: issueBody().optional(),
    status: issueStatus().optional(),
    labels: issueLabels().optional(),
    assignee: z.union([uuid(), z.null()]).optional(),
    linkedChangeId: linkedChangeRef().optional(),
  });

export const createCommentInput = () =>
  z.object({
    ...projectParams(),
    number: issueNumber(),
    body: text().trim().min(1, "body is required").max(TEXT_BODY_MAX),
  });
export const listCommentsInput = () =>
  z.object({ ...projectParams(), number: issueNumber(), limit: listLimit(), offset: listOffset() });

export const issueOutput = namedSchema("Issue", () =>
  z.object({
    id: z.string(),
    number: z.number().int(),
    title: z.string(),
    body: z.string(),
    status: issueStatus(),
    labels: z.array(z.string()),
    assignee: z.string().nullable(),
    linkedChangeId: z.string().nullable(),
    author: z.string().nullable(),
    /** How many comments it has (in lists only). */
    comments: z.number().int().optional(),
    closedAt: z.string().nullable(),
    closedBy: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

export const commentOutput = namedSchema("IssueComment", () =>
  z.object({
    id: z.string(),
    issueNumber: z.number().int(),
    body: z.string(),
    author: z.string().nullable(),
    createdAt: z.string(),
  }),
);

export type IssueView = z.infer<ReturnType<typeof issueOutput>>;
export type CommentView = z.infer<ReturnType<typeof commentOutput>>;

export const timelineOutput = () =>
  z.object({
    entries: z.array(
      z.object({
        id: z.string(),
        kind: z.enum([
          "issue.opened",
          "issue.closed",
          "issue.reopened",
          "issue.labeled",
          "issue.assigned",
          "issue.linked",
        ]),
        actor: z.string(),
        occurredAt: z.string(),
        added: z.array(z.string()),
        removed: z.array(z.string()),
        assignee: z.string().nullable(),
        changeId: z.string().nullable(),
      }),
    ),
  });

export type TimelineEntry = z.infer<ReturnType<typeof timelineOutput>>["entries"][number];
