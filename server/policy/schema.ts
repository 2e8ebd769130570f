import { z } from "zod";

// The keys of .svc/policy.yml. Objects are strict: an unknown or misspelt key is an error, never a
// silently ignored setting.

const globList = () => z.array(z.string().min(1).max(500)).max(200);
const httpUrl = () =>
  z.string().url().refine((value) => /^https?:\/\//i.test(value), "must be an http(s) URL");

const diffEvaluator = z.strictObject({
  maxFiles: z.number().int().min(1).optional(),
  /** Added plus deleted lines over the whole change. */
  maxLines: z.number().int().min(1).optional(),
  /** Largest single file (bytes) the change may add or modify. */
  maxFileBytes: z.number().int().min(1).optional(),
  /** Paths a change must not touch. */
  forbiddenPaths: globList().default([]),
  /** When present, every touched path must match one of these. */
  allowedPaths: globList().optional(),
});

const webhookEvaluator = z.strictObject({
  url: httpUrl(),
  timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
});

const llmEvaluator = z.strictObject({
  /** Extra review instructions appended to the built-in system prompt. */
  instructions: z.string().max(20_000).optional(),
  /** Overrides LLM_MODEL for this project. */
  model: z.string().min(1).max(200).optional(),
  /** Cap on the diff characters sent to the model. */
  maxDiffChars: z.number().int().min(1_000).max(2_000_000).default(200_000),
});

const sandboxEvaluator = z.strictObject({
  /** Run with `sh -c` in a checkout of the change's tip. A non-zero exit fails the evaluation. */
  command: z.string().min(1).max(10_000),
  timeoutMs: z.number().int().min(1_000).max(30 * 60_000).default(120_000),
  memoryMb: z.number().int().min(16).max(16_384).default(512),
});

const secretScan = z.strictObject({
  /** Paths (globs) whose findings are ignored, on top of the built-in lockfile and fixture allowlist. */
  allowPaths: globList().default([]),
});

export const policySchema = z.strictObject({
  requiredApprovals: z.number().int().min(0).max(20).default(0),
  merge: z
    .strictObject({
      allowForce: z.boolean().default(false),
      requireFreshBase: z.boolean().default(true),
    })
    .default({ allowForce: false, requireFreshBase: true }),
  protection: z
    .strictObject({
      /** Nothing merges into the default branch while locked. */
      locked: z.boolean().default(false),
      /** git pushes straight to the default branch (smart HTTP); merges go through changes either way. */
      allowDirectPush: z.boolean().default(true),
    })
    .default({ locked: false, allowDirectPush: true }),
  evaluators: z
    .strictObject({
      secretScan: secretScan.default({ allowPaths: [] }),
      diff: diffEvaluator.optional(),
      webhook: webhookEvaluator.optional(),
      llm: llmEvaluator.optional(),
      sandbox: sandboxEvaluator.optional(),
    })
    .default({ secretScan: { allowPaths: [] } }),
  /** Deployment entries; parsed by the deployments area. */
  deploys: z.unknown().optional(),
});

export type Policy = z.infer<typeof policySchema>;
export type DiffPolicy = z.infer<typeof diffEvaluator>;
export type WebhookPolicy = z.infer<typeof webhookEvaluator>;
export type LlmPolicy = z.infer<typeof llmEvaluator>;
export type SandboxPolicy = z.infer<typeof sandboxEvaluator>;

/** Evaluators a policy can name besides the secret scan, which always runs. */
export const OPTIONAL_EVALUATORS = ["diff", "webhook", "llm", "sandbox"] as const;
export type OptionalEvaluator = (typeof OPTIONAL_EVALUATORS)[number];
