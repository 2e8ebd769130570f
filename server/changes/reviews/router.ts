import { z } from "zod";
import { publicProcedure, router, userProcedure } from "@/server/trpc";
import { text, namedSchema } from "@/server/http";
import { TEXT_BODY_MAX } from "@/server/limits";
import { changeIdParam } from "@/server/changes/schemas";
import { ChangeStatus } from "@/server/changes/views";
import { listReviews, submitReview } from "./service";

const tags = ["changes"];
const BASE = "/changes/{id}/reviews";

const reviewOutput = namedSchema("Review", () =>
  z.object({
    id: z.string(),
    changeId: z.string(),
    reviewer: z.object({ id: z.string(), username: z.string().nullable() }),
    verdict: z.enum(["approve", "request_changes", "comment"]),
    comment: z.string().nullable(),
    baseSha: z.string(),
    dismissed: z.boolean(),
    dismissedAt: z.string().nullable(),
    createdAt: z.string(),
  }),
);

export const reviewsRouter = router({
  submit: userProcedure
    .meta({
      openapi: { method: "POST", path: BASE, tags, summary: "Submit a review verdict (users with write access)" },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(
      z.object({
        id: changeIdParam(),
        verdict: z.enum(["approve", "request_changes", "comment"]),
        comment: text().max(TEXT_BODY_MAX).optional(),
      }),
    )
    .output(z.object({ review: reviewOutput(), changeStatus: z.enum(ChangeStatus) }))
    .mutation(({ input, ctx }) => submitReview(ctx.identity, input.id, input)),

  list: publicProcedure
    .meta({
      openapi: { method: "GET", path: BASE, tags, summary: "A change's review verdicts, dismissed ones included" },
    })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ reviews: z.array(reviewOutput()) }))
    .query(async ({ input, ctx }) => ({ reviews: await listReviews(ctx.identity, input.id) })),
});
