import { z } from "zod";
import { publicProcedure, userProcedure } from "@/server/trpc";
import { booleanish, text } from "@/server/http";
import { changeIdParam } from "../schemas";
import { setViewed, viewedFiles } from "./service";

/** Per-file "viewed" marks of the change page, mounted in the changes router; no REST routes (the page calls them in-process). */
export const viewedProcedures = {
  viewedFiles: publicProcedure
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ paths: z.array(z.string()) }))
    .query(async ({ input, ctx }) => ({ paths: await viewedFiles(ctx.identity, input.id) })),

  setViewed: userProcedure
    .input(z.object({ id: changeIdParam(), path: text().min(1).max(4096), viewed: booleanish() }))
    .output(z.object({ path: z.string(), viewed: z.boolean() }))
    .mutation(({ input, ctx }) => setViewed(ctx.identity, input.id, input.path, input.viewed)),
};
