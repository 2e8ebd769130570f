import { z } from "zod";
import { authedProcedure, router } from "@/server/trpc";
import { boundedInt, namedSchema, pathSegment, text } from "@/server/http";
import { projectParams } from "@/server/projects";
import {
  WORKSPACE_KEY_NAME_MAX,
  WORKSPACE_KEY_TTL_MINUTES_DEFAULT,
  WORKSPACE_KEY_TTL_MINUTES_MAX,
} from "@/server/limits";
import { createWorkspaceKey, listWorkspaceKeys, revokeWorkspaceKey } from "./keys";

const tags = ["workspaces"];
// {workspace}, not {name} as in the other workspace routes: the body's `name` is the key's.
const KEYS = "/workspaces/{namespace}/{slug}/workspaces/{workspace}/keys";

const keyOutput = namedSchema("WorkspaceKey", () =>
  z.object({
    id: z.string(),
    workspace: z.string(),
    projectId: z.string(),
    name: z.string(),
    prefix: z.string(),
    expiresAt: z.string(),
    createdAt: z.string(),
    createdBy: z.object({ id: z.string(), username: z.string(), agentId: z.string().nullable() }),
    revokedAt: z.string().nullable(),
    revokedReason: z.enum(["merged", "rejected", "expired", "deleted", "access_lost", "revoked"]).nullable(),
  }),
);

/** Workspace keys (docs/contracts.md#agents): one workspace's credential, handed to a worker. */
export const workspaceKeysRouter = router({
  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: KEYS,
        tags,
        summary: "Mint a key scoped to this workspace; plaintext shown once (writers, users or agents)",
      },
      successStatus: 201,
    })
    .input(
      z.object({
        ...projectParams(),
        workspace: pathSegment(),
        ttlMinutes: boundedInt(1, WORKSPACE_KEY_TTL_MINUTES_MAX, WORKSPACE_KEY_TTL_MINUTES_DEFAULT),
        name: text().min(1).max(WORKSPACE_KEY_NAME_MAX).optional(),
      }),
    )
    .output(z.object({ key: keyOutput(), plaintext: z.string() }))
    .mutation(({ input, ctx }) =>
      createWorkspaceKey(ctx.identity, input, { ttlMinutes: input.ttlMinutes, keyName: input.name }),
    ),

  list: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: KEYS,
        tags,
        summary: "The workspace's active keys (revoked=true: every key, with why it ended)",
      },
      errors: { 403: [] },
    })
    .input(z.object({ ...projectParams(), workspace: pathSegment(), revoked: z.enum(["true", "false"]).optional() }))
    .output(z.object({ keys: z.array(keyOutput()) }))
    .query(async ({ input, ctx }) => ({
      keys: await listWorkspaceKeys(ctx.identity, input, { revoked: input.revoked === "true" }),
    })),

  revoke: authedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/workspace-keys/{id}",
        tags,
        summary: "Revoke a workspace key (its creator or a project admin)",
      },
      errors: { 403: [] },
    })
    .input(z.object({ id: pathSegment() }))
    .output(z.object({ revoked: z.literal(true), id: z.string() }))
    .mutation(({ input, ctx }) => revokeWorkspaceKey(ctx.identity, input.id)),
});
