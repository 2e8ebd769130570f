import { z } from "zod";
import { publicProcedure, router, setCursorHeaders } from "@/server/trpc";
import { ACTIVITY_LIMIT_DEFAULT, ACTIVITY_LIMIT_MAX } from "@/server/limits";
import { projectActivity } from "./service";
import { boundedInt, namedSchema, text } from "@/server/http";
import { projectParams } from "@/server/projects";
import { eventSubjectOutput } from "@/server/events";

const eventOutput = namedSchema("ActivityEvent", () =>
  z.object({
    id: z.string(),
    kind: z.string(),
    actor: z.string(),
    occurredAt: z.string(),
    data: z.record(z.string(), z.unknown()),
    subject: eventSubjectOutput().describe("The change or issue the event is about, with its number and title"),
  }),
);

export const activityRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/projects/{namespace}/{slug}/activity",
        tags: ["activity"],
        summary: "The project's domain events, newest first (before an event id: Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(
      z.object({
        ...projectParams(),
        before: text().max(100).optional(),
        limit: boundedInt(1, ACTIVITY_LIMIT_MAX, ACTIVITY_LIMIT_DEFAULT),
      }),
    )
    .output(z.object({ namespace: z.string(), slug: z.string(), path: z.string(), events: z.array(eventOutput()) }))
    .query(async ({ input, ctx }) => {
      const activity = await projectActivity(ctx.identity, input, input);
      setCursorHeaders(ctx, {
        limit: input.limit,
        count: activity.events.length,
        nextBefore: activity.events.at(-1)?.id,
      });
      return activity;
    }),
});
