import { z } from "zod";
import { router, userProcedure } from "@/server/trpc";
import { invalid } from "@/server/errors";
import { deletionOutput } from "@/server/projects/schemas";
import { requestDeletion } from "./service";

export const accountDeletionRouter = router({
  deleteMe: userProcedure
    .meta({ openapi: { method: "DELETE", path: "/users/me", tags: ["users"], summary: "Delete the account (confirm = own username); asynchronous" }, successStatus: 202 })
    .input(z.object({ confirm: z.string().optional() }))
    .output(deletionOutput())
    .mutation(({ input, ctx }) => {
      if (input.confirm !== ctx.identity.username) throw invalid("confirm must be exactly your username", "VALIDATION_ERROR");
      return requestDeletion("user", ctx.identity.userId, ctx.identity.userId);
    }),
});
