import { z } from "zod";
import { ImportPhase, ImportStatus, SyncRunStatus, SyncTrigger } from "@/server/generated/prisma/enums";
import { boundedInt, text } from "@/server/http";
import {
  SYNC_FREQUENCY_MAX,
  SYNC_FREQUENCY_MIN,
  SYNC_HISTORY_LIMIT_DEFAULT,
  SYNC_HISTORY_LIMIT_MAX,
} from "@/server/limits";

// Built per use: trpc-to-openapi mutates shared schema instances.

export const importInput = () => ({
  url: text().min(1).max(2048),
  branch: text().min(1).max(255).default("main"),
  depth: z.number().int().min(1).max(1_000_000).optional(),
  visibility: z.enum(["private", "public"]).default("private"),
});

export const sourceOutput = () =>
  z.object({ provider: z.string(), owner: z.string(), repo: z.string(), url: z.string(), branch: z.string() });

export const importProgressOutput = () =>
  z.object({
    importId: z.string(),
    status: z.enum(ImportStatus),
    phase: z.enum(ImportPhase).nullable(),
    progress: z.object({ receivedObjects: z.number(), totalObjects: z.number(), percent: z.number() }).nullable(),
    failureCategory: z.string().nullable(),
    error: z.string().nullable(),
    source: sourceOutput(),
    startedAt: z.string().nullable(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    recovered: z.boolean().optional(),
  });

export const importCreatedOutput = () =>
  z.union([
    z.object({
      namespace: z.string(),
      slug: z.string(),
      importId: z.string(),
      path: z.string(),
      status: z.literal("queued"),
      source: sourceOutput(),
      visibility: z.enum(["private", "public"]),
    }),
    z.object({
      namespace: z.string(),
      slug: z.string(),
      remote: z.string(),
      source: sourceOutput(),
      importId: z.string(),
      status: z.string(),
    }),
  ]);

export const importActionOutput = () =>
  z.object({
    message: z.string(),
    namespace: z.string(),
    slug: z.string(),
    status: z.enum(["queued", "cancelled", "cancelling"]),
  });

const syncError = () => z.object({ code: z.string(), message: z.string() }).nullable();

export const syncRequestOutput = () =>
  z.object({
    message: z.string(),
    namespace: z.string(),
    slug: z.string(),
    importId: z.string().nullable(),
    status: z.string(),
    hasUpdates: z.boolean(),
    commitsBehind: z.number().int(),
    latestCommit: z.string(),
    lastSyncedCommit: z.string().nullable(),
  });

export const syncStatusOutput = () =>
  z.object({
    status: z.enum(["idle", "queued", "running", "succeeded", "failed"]),
    hasUpdates: z.boolean(),
    commitsBehind: z.number().int(),
    latestCommit: z.string().nullable(),
    lastSyncedCommit: z.string().nullable(),
    lastSyncAt: z.string().nullable(),
    error: syncError(),
    autoSyncEnabled: z.boolean(),
    syncFrequency: z.number().int(),
  });

export const syncSettingsInput = () => ({
  // Literals: trpc-to-openapi would coerce z.boolean() ("maybe" -> true).
  autoSyncEnabled: z.union([z.literal(true), z.literal(false)]).optional(),
  syncFrequency: z.number().int().min(SYNC_FREQUENCY_MIN).max(SYNC_FREQUENCY_MAX).optional(),
});

export const syncSettingsOutput = () =>
  z.object({ success: z.literal(true), autoSyncEnabled: z.boolean(), syncFrequency: z.number().int() });

export const syncHistoryInput = () => ({
  limit: boundedInt(1, SYNC_HISTORY_LIMIT_MAX, SYNC_HISTORY_LIMIT_DEFAULT),
  offset: boundedInt(0, Number.MAX_SAFE_INTEGER, 0),
});

export const syncHistoryOutput = () =>
  z.object({
    history: z.array(
      z.object({
        id: z.string(),
        trigger: z.enum(SyncTrigger),
        status: z.enum(SyncRunStatus),
        fromCommit: z.string().nullable(),
        toCommit: z.string().nullable(),
        commitsSynced: z.number().int().nullable(),
        error: syncError(),
        startedAt: z.string().nullable(),
        finishedAt: z.string().nullable(),
        durationMs: z.number().int().nullable(),
      }),
    ),
  });
