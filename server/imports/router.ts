import { z } from "zod";
import { authedProcedure, publicProcedure, router, setPageHeaders } from "@/server/trpc";
import { projectParams } from "@/server/projects";
import {
  importActionOutput,
  importCreatedOutput,
  importInput,
  importProgressOutput,
  syncHistoryInput,
  syncHistoryOutput,
  syncRequestOutput,
  syncSettingsInput,
  syncSettingsOutput,
  syncStatusOutput,
} from "./schemas";
import { cancelImport, importStatus, requestImport, retryImport } from "./service";
import { requestSync, syncHistory, syncStatus, updateSyncSettings } from "./sync";

const tags = ["imports"];
const PROJECT = "/projects/{namespace}/{slug}";
const refOf = (input: { namespace: string; slug: string }) => ({ namespace: input.namespace, slug: input.slug });

export const importsRouter = router({
  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/import`,
        tags,
        summary: "Import a repository from the hosting provider into your namespace",
      },
      successStatus: 201,
      alsoSuccess: [200],
      errors: { 403: [], 409: ["IMPORT_IN_PROGRESS", "NAMESPACE_TAKEN"] },
    })
    .input(z.object({ ...projectParams(), ...importInput() }))
    .output(importCreatedOutput())
    .mutation(async ({ input, ctx }) => {
      const { namespace, slug, ...request } = input;
      const result = await requestImport(ctx.identity, { namespace, slug }, request);
      ctx.response.status = result.created ? 201 : 200;
      return result.body;
    }),

  status: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/import/status`,
        tags,
        summary: "Import progress (recovers an import stalled over 5 minutes)",
      },
    })
    .input(z.object(projectParams()))
    .output(importProgressOutput())
    .query(({ input, ctx }) => importStatus(ctx.identity, refOf(input))),

  retry: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/import/retry`,
        tags,
        summary: "Queue a failed or cancelled import again",
      },
      errors: { 403: [], 409: ["IMPORT_IN_PROGRESS"] },
    })
    .input(z.object(projectParams()))
    .output(importActionOutput())
    .mutation(({ input, ctx }) => retryImport(ctx.identity, refOf(input))),

  cancel: authedProcedure
    .meta({
      openapi: { method: "POST", path: `${PROJECT}/import/cancel`, tags, summary: "Cancel a queued or running import" },
      errors: { 403: [] },
    })
    .input(z.object(projectParams()))
    .output(importActionOutput())
    .mutation(({ input, ctx }) => cancelImport(ctx.identity, refOf(input))),

  sync: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/sync`,
        tags,
        summary: "Check the source and queue a sync when it has new commits",
      },
      errors: { 401: ["AUTH_ERROR"], 403: [], 409: ["IMPORT_IN_PROGRESS"], 502: ["GITHUB_ERROR"] },
    })
    .input(z.object(projectParams()))
    .output(syncRequestOutput())
    .mutation(({ input, ctx }) => requestSync(ctx.identity, refOf(input))),

  syncStatus: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/sync/status`,
        tags,
        summary: "Sync status (anonymous on public projects)",
      },
    })
    .input(z.object(projectParams()))
    .output(syncStatusOutput())
    .query(({ input, ctx }) => syncStatus(ctx.identity, refOf(input))),

  syncSettings: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/sync/settings`,
        tags,
        summary: "Auto-sync on/off and its frequency in minutes",
      },
      errors: { 403: [] },
    })
    .input(z.object({ ...projectParams(), ...syncSettingsInput() }))
    .output(syncSettingsOutput())
    .mutation(({ input, ctx }) =>
      updateSyncSettings(ctx.identity, refOf(input), {
        autoSyncEnabled: input.autoSyncEnabled,
        syncFrequency: input.syncFrequency,
      }),
    ),

  syncHistory: authedProcedure
    .meta({
      openapi: { method: "GET", path: `${PROJECT}/sync/history`, tags, summary: "Sync runs, newest first" },
      errors: { 403: [] },
      list: true,
    })
    .input(z.object({ ...projectParams(), ...syncHistoryInput() }))
    .output(syncHistoryOutput())
    .query(async ({ input, ctx }) => {
      const { history, total } = await syncHistory(ctx.identity, refOf(input), {
        limit: input.limit,
        offset: input.offset,
      });
      setPageHeaders(ctx, { total, limit: input.limit, offset: input.offset });
      return { history };
    }),
});
