import { z } from "zod";
import {
  DEPLOY_TIMEOUT_MS_DEFAULT,
  DEPLOY_TIMEOUT_MS_MAX,
  EVALUATION_WAIT_SECONDS_DEFAULT,
  EVALUATION_WAIT_SECONDS_MAX,
  SECRET_NAME_PATTERN,
} from "@/server/limits";

// The keys of .svc/policy.yml. Objects are strict: an unknown or misspelt key is an error, never a
// silently ignored setting.

const globList = () => z.array(z.string().min(1).max(500)).max(200);
const httpUrl = () =>
  z
    .string()
    .url()
    .refine((value) => /^https?:\/\//i.test(value), "must be an http(s) URL");

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

/** A path inside the checkout: relative, without `..` or `.git`. */
const checkoutPath = () =>
  z
    .string()
    .min(1)
    .max(500)
    .refine(
      (value) => !value.startsWith("/") && !value.split("/").some((part) => part === ".." || part === ".git"),
      "must be a path inside the repository (relative, no .. or .git)",
    );

const sandboxEvaluator = z
  .strictObject({
    /** Run with `sh -c` in a checkout of the change's tip, without network. A non-zero exit fails the evaluation. */
    command: z.string().min(1).max(10_000),
    /** Run first in the same checkout, with network (installs dependencies); its failure fails the run. */
    setup: z.string().min(1).max(10_000).optional(),
    /** What setup produced, kept per project between runs: `key` files (with setup and platform) name the entry. */
    cache: z
      .strictObject({
        key: z.array(checkoutPath()).min(1).max(20),
        paths: z.array(checkoutPath()).min(1).max(20),
      })
      .optional(),
    /** JUnit XML files (globs in the checkout) the command writes; their failed cases become findings. */
    reports: z.array(checkoutPath()).min(1).max(50).optional(),
    /** A failed command runs again up to this many times; passing later marks the run flaky. */
    retries: z.number().int().min(0).max(5).default(0),
    /** setup and command together. */
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(30 * 60_000)
      .default(120_000),
    memoryMb: z.number().int().min(16).max(16_384).default(512),
  })
  .refine((sandbox) => !sandbox.cache || sandbox.setup, {
    message: "a cache keeps what setup produces: it needs a setup",
    path: ["cache"],
  });

const secretScan = z.strictObject({
  /** Paths (globs) whose findings are ignored, on top of the built-in lockfile and fixture allowlist. */
  allowPaths: globList().default([]),
});

const secretName = () => z.string().regex(SECRET_NAME_PATTERN, "must be a secret name (^[A-Z][A-Z0-9_]{0,63}$)");

/** What every deploy entry has; `provider` picks the rest. */
const deployEntryBase = {
  name: z.string().regex(/^[a-z0-9-]{1,64}$/, "must be 1-64 of a-z, 0-9 and -"),
  /** The branch whose merges deploy; the project's default branch when absent. */
  branch: z.string().min(1).max(255).optional(),
  requireApproval: z.boolean().default(false),
  /** Names from the project's secret store handed to the provider. */
  secrets: z.array(secretName()).max(100).default([]),
  timeoutMs: z.number().int().min(1_000).max(DEPLOY_TIMEOUT_MS_MAX).default(DEPLOY_TIMEOUT_MS_DEFAULT),
};

const deployEntry = z.discriminatedUnion("provider", [
  z.strictObject({
    ...deployEntryBase,
    provider: z.literal("webhook"),
    url: httpUrl(),
    /** A secret store name whose value signs the request (X-Svc-Signature); unsigned without it. */
    signWith: secretName().optional(),
  }),
  z.strictObject({
    ...deployEntryBase,
    provider: z.literal("command"),
    /** Run with `sh -c` by the sandbox binding in a checkout of the commit. */
    command: z.string().min(1).max(10_000),
  }),
]);

const deploysBlock = z
  .array(deployEntry)
  .max(50)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      if (seen.has(entry.name))
        ctx.addIssue({ code: "custom", path: [index, "name"], message: `the name "${entry.name}" is used twice` });
      seen.add(entry.name);
    });
  });

export const policySchema = z.strictObject({
  requiredApprovals: z.number().int().min(0).max(20).default(0),
  merge: z
    .strictObject({
      allowForce: z.boolean().default(false),
      requireFreshBase: z.boolean().default(true),
      /** Changes that reach accepted/approved and pass the approval gate enter the merge queue by themselves. */
      autoQueue: z.boolean().default(false),
    })
    .default({ allowForce: false, requireFreshBase: true, autoQueue: false }),
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
  /** What deploys after a branch moves (the deployments area acts on it). */
  deploys: deploysBlock.default([]),
  evaluation: z
    .strictObject({
      /** How long a request waits for background evaluators before answering with the change open. */
      waitSeconds: z.number().int().min(0).max(EVALUATION_WAIT_SECONDS_MAX).default(EVALUATION_WAIT_SECONDS_DEFAULT),
    })
    .default({ waitSeconds: EVALUATION_WAIT_SECONDS_DEFAULT }),
});

export type Policy = z.infer<typeof policySchema>;
export type DiffPolicy = z.infer<typeof diffEvaluator>;
export type WebhookPolicy = z.infer<typeof webhookEvaluator>;
export type LlmPolicy = z.infer<typeof llmEvaluator>;
export type SandboxPolicy = z.infer<typeof sandboxEvaluator>;
export type EvaluationPolicy = z.infer<typeof policySchema>["evaluation"];
export type DeployEntry = z.infer<typeof deployEntry>;

/** Evaluators a policy can name besides the secret scan, which always runs. */
export const OPTIONAL_EVALUATORS = ["diff", "webhook", "llm", "sandbox"] as const;
export type OptionalEvaluator = (typeof OPTIONAL_EVALUATORS)[number];
