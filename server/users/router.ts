import { z } from "zod";
import { authedProcedure, publicProcedure, router, sessionProcedure, userProcedure } from "@/server/trpc";
import { forbidden } from "@/server/errors";
import { pathSegment, text, namedSchema } from "@/server/http";
import { ACTOR_NAMES_MAX, DISPLAY_NAME_MAX, TOKEN_EXPIRY_DAYS_MAX, TOKEN_EXPIRY_DAYS_MIN } from "@/server/limits";
import { listApiTokens } from "@/server/auth";
import { eventSubjectOutput } from "@/server/events";
import { actorNames, displayNames, userProfile } from "./people";
import {
  createNamedToken,
  disableLegacyCredential,
  profileOf,
  revokeToken,
  rotateLegacyCredential,
  updateProfile,
} from "./service";

const tokenSchema = namedSchema("Token", () =>
  z.object({
    id: z.string(),
    kind: z.enum(["token", "oauth"]),
    name: z.string(),
    scope: z.enum(["read", "read_write"]),
    prefix: z.string(),
    status: z.enum(["active", "expired", "revoked"]),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  }),
);

const NO_STORE = "no-store";

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A display name: 1-64 characters once trimmed, no control characters. */
const displayName = () =>
  text()
    .trim()
    .min(1)
    .max(DISPLAY_NAME_MAX)
    .refine((value) => !CONTROL.test(value), "must not contain control characters");

const meOutput = () =>
  z.object({
    id: z.string(),
    username: z.string(),
    displayName: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    isAdmin: z.boolean(),
    credential: z.object({
      kind: z.enum(["session", "legacy", "token", "oauth"]),
      scope: z.enum(["read", "read_write"]),
    }),
  });

export const usersRouter = router({
  me: userProcedure
    .meta({
      openapi: { method: "GET", path: "/users/me", tags: ["users"], summary: "The authenticated user's profile" },
    })
    .input(z.object({}))
    .output(meOutput())
    .query(({ ctx }) => profileOf(ctx.identity)),

  updateMe: userProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/users/me",
        tags: ["users"],
        summary: "Set the authenticated user's display name (null clears it)",
      },
    })
    .input(z.object({ displayName: displayName().nullable().optional() }))
    .output(meOutput())
    .mutation(({ ctx, input }) => updateProfile(ctx.identity, input)),

  listTokens: sessionProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/users/me/tokens",
        tags: ["users"],
        summary: "API tokens and OAuth grants (never plaintext); session only",
      },
    })
    .input(z.object({}))
    .output(z.object({ tokens: z.array(tokenSchema()) }))
    .query(async ({ ctx }) => ({ tokens: await listApiTokens(ctx.identity.userId) })),

  createToken: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/users/me/tokens",
        tags: ["users"],
        summary: "Create an API token; plaintext shown once; session only",
      },
      successStatus: 201,
      errors: { 409: ["TOKEN_LIMIT_REACHED"] },
    })
    .input(
      z.object({
        name: text().trim().min(1).max(100),
        scope: z.enum(["read", "read_write"]).default("read"),
        expiresInDays: z.number().int().min(TOKEN_EXPIRY_DAYS_MIN).max(TOKEN_EXPIRY_DAYS_MAX).optional(),
      }),
    )
    .output(z.object({ token: tokenSchema(), plaintext: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const created = await createNamedToken(ctx.identity, input);
      ctx.response.headers["Cache-Control"] = NO_STORE;
      return created;
    }),

  revokeToken: sessionProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/users/me/tokens/{id}",
        tags: ["users"],
        summary: "Revoke a token (the row is kept); session only",
      },
    })
    .input(z.object({ id: pathSegment() }))
    .output(z.object({ token: tokenSchema() }))
    .mutation(async ({ ctx, input }) => ({ token: await revokeToken(ctx.identity, input.id) })),

  disableLegacyToken: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/users/me/legacy-token/disable",
        tags: ["users"],
        summary: "Disable the legacy credential permanently; session only",
      },
    })
    .input(z.object({}))
    .output(
      z.object({
        legacyToken: z.object({ disabled: z.literal(true), disabledAt: z.string(), prefix: z.string().nullable() }),
      }),
    )
    .mutation(async ({ ctx }) => ({ legacyToken: await disableLegacyCredential(ctx.identity.userId) })),

  rotateToken: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/users/me/rotate-token",
        tags: ["users"],
        summary: "Mint a new legacy credential; session or the legacy credential",
      },
      errors: { 403: ["SESSION_REQUIRED"], 409: ["CONFLICT"] },
    })
    .input(z.object({}))
    .output(z.object({ token: z.string(), prefix: z.string() }))
    .mutation(async ({ ctx }) => {
      const { identity } = ctx;
      if (identity.kind !== "user" || (identity.via !== "session" && identity.via !== "legacy")) {
        throw forbidden("Rotation accepts the session cookie or the legacy credential only", "SESSION_REQUIRED");
      }
      const rotated = await rotateLegacyCredential(identity.userId);
      ctx.response.headers["Cache-Control"] = NO_STORE;
      return rotated;
    }),

  // No REST routes: the pages read these in-process (typed callers through /api/trpc).
  profile: publicProcedure
    .input(z.object({ username: text().min(1).max(100) }))
    .output(
      z.object({
        user: z.object({
          id: z.string(),
          username: z.string(),
          displayName: z.string().nullable(),
          avatarUrl: z.string().nullable(),
          createdAt: z.string(),
        }),
        projects: z.array(
          z.object({ path: z.string(), visibility: z.enum(["public", "private"]), updatedAt: z.string() }),
        ),
        orgs: z.array(z.object({ slug: z.string(), name: z.string() })),
        activity: z.array(
          z.object({
            id: z.string(),
            kind: z.string(),
            actor: z.string(),
            subject: eventSubjectOutput(),
            project: z.string().nullable(),
            occurredAt: z.string(),
            data: z.record(z.string(), z.unknown()),
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => userProfile(ctx.identity, input.username)),

  actors: publicProcedure
    .input(z.object({ actors: z.array(text().max(100)).max(ACTOR_NAMES_MAX) }))
    .output(
      z.object({
        actors: z.array(
          z.object({
            actor: z.string(),
            kind: z.enum(["user", "agent", "system", "unknown"]),
            username: z.string().nullable(),
            displayName: z.string().nullable(),
            agentName: z.string().nullable(),
          }),
        ),
      }),
    )
    .query(async ({ input }) => ({ actors: await actorNames(input.actors) })),

  displayNames: publicProcedure
    .input(z.object({ usernames: z.array(text().max(100)).max(ACTOR_NAMES_MAX) }))
    .output(z.object({ names: z.array(z.object({ username: z.string(), displayName: z.string() })) }))
    .query(async ({ input }) => ({ names: await displayNames(input.usernames) })),
});
