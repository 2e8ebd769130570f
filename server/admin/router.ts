import { z } from "zod";
import { authedProcedure, router } from "@/server/trpc";
import { forbidden } from "@/server/errors";
import type { Identity } from "@/server/auth/identity";
import { createUser, publicUser, usernameSchema } from "@/server/auth/users";

/** Admin routes take the X-Admin-API-Key header or an instance administrator's direct credential. */
export function assertAdmin(identity: Identity): void {
  if (identity.kind === "admin-key") return;
  if (identity.kind === "user" && identity.via === "oauth") {
    throw forbidden("OAuth grants are not accepted on admin routes", "ADMIN_REQUIRES_DIRECT_CREDENTIAL");
  }
  if (identity.kind === "user" && identity.isAdmin) return;
  throw forbidden("Administrator access required");
}

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  assertAdmin(ctx.identity);
  return next();
});

export const adminRouter = router({
  createUser: adminProcedure
    .meta({ openapi: { method: "POST", path: "/admin/users", tags: ["admin"], summary: "Create a user and its legacy credential" }, successStatus: 201 })
    .input(z.object({ username: usernameSchema() }))
    .output(z.object({ user: z.object({ id: z.string(), username: z.string() }), token: z.string() }))
    .mutation(async ({ input, ctx }) => {
      const { user, token } = await createUser(input.username);
      ctx.response.headers["Cache-Control"] = "no-store";
      return { user: publicUser(user), token };
    }),
});
