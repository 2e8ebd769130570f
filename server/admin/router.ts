import { z } from "zod";
import { adminProcedure, router } from "@/server/trpc";
import { createUser, publicUser, publicUserOutput, usernameSchema } from "@/server/auth";

export const adminRouter = router({
  createUser: adminProcedure
    .meta({ openapi: { method: "POST", path: "/admin/users", tags: ["admin"], summary: "Create a user and its legacy credential" }, successStatus: 201, errors: { 409: ["CONFLICT"] } })
    .input(z.object({ username: usernameSchema() }))
    .output(z.object({ user: publicUserOutput(), token: z.string() }))
    .mutation(async ({ input, ctx }) => {
      const { user, token } = await createUser(input.username);
      ctx.response.headers["Cache-Control"] = "no-store";
      return { user: publicUser(user), token };
    }),
});
