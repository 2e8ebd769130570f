import { config } from "@/server/config";
import type { ChangeDiff } from "./types";
import type { LlmPolicy } from "@/server/policy";
import { addedText } from "./secret-scan/scanner";
import { parseVerdictReply } from "./verdict";
import type { EvalRunResult, EvaluationSubject } from "./types";

const SYSTEM_PROMPT = [
  "You review a proposed change to a git repository before it is merged.",
  "Reply with a single JSON object and nothing else:",
  '{"verdict": "pass" | "fail", "issues": [{"message": string, "file"?: string, "line"?: number}]}',
  'Use "fail" only for problems that must block the merge (bugs, security flaws, broken code).',
].join("\n");

/** The change as the model sees it: per file, its status and the lines it adds; cut at `maxChars`. */
export function diffForModel(diff: ChangeDiff, maxChars: number): string {
  const parts: string[] = [];
  let size = 0;
  for (const file of diff.files) {
    const header = `=== ${file.path} (${file.status}, +${file.additions} -${file.deletions})`;
    const body =
      file.binary || file.newText === null
        ? "(binary or deleted)"
        : addedText(file.oldText, file.newText)
            .text.split("\n")
            .map((l) => `+${l}`)
            .join("\n");
    const chunk = `${header}\n${body}\n`;
    if (size + chunk.length > maxChars) {
      parts.push(`=== (diff truncated at ${maxChars} characters; ${diff.files.length} files in total)`);
      break;
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return parts.join("\n");
}

export const llmConfigured = () => config.llmApiUrl !== undefined;

/**
 * Asks an OpenAI-compatible chat endpoint (LLM_API_URL/chat/completions) for a verdict. Tokens
 * come from the reply's `usage`; cost from LLM_COST_PER_MTOK_INPUT/OUTPUT.
 */
export async function runLlmEvaluator(
  subject: EvaluationSubject,
  policy: LlmPolicy,
  signal?: AbortSignal,
): Promise<Omit<EvalRunResult, "evaluator" | "durationMs">> {
  const url = `${config.llmApiUrl}/chat/completions`;
  const instructions = policy.instructions ? `\nProject instructions:\n${policy.instructions}` : "";
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.llmApiKey ? { authorization: `Bearer ${config.llmApiKey}` } : {}),
      },
      body: JSON.stringify({
        model: policy.model ?? config.llmModel,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: SYSTEM_PROMPT + instructions },
          {
            role: "user",
            content: `Project ${subject.project.path}\n\n${diffForModel(subject.diff, policy.maxDiffChars)}`,
          },
        ],
      }),
      signal: AbortSignal.any([AbortSignal.timeout(config.llmTimeoutMs), ...(signal ? [signal] : [])]),
    });
  } catch (error) {
    return { status: "error", findings: [{ message: `LLM endpoint unreachable: ${(error as Error).message}` }] };
  }
  if (!response.ok)
    return { status: "error", findings: [{ message: `LLM endpoint answered HTTP ${response.status}` }] };
  const reply = (await response.json().catch(() => null)) as {
    choices?: Array<{ message?: { content?: string } }>;
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  } | null;
  const inputTokens = reply?.usage?.prompt_tokens ?? 0;
  const outputTokens = reply?.usage?.completion_tokens ?? 0;
  const costUsd =
    (inputTokens * config.llmCostPerMillionInput + outputTokens * config.llmCostPerMillionOutput) / 1_000_000;
  const content = reply?.choices?.[0]?.message?.content ?? "";
  // Some models wrap JSON in a fenced block.
  const json = content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, "");
  return { ...parseVerdictReply(json, "The LLM reviewer"), inputTokens, outputTokens, costUsd };
}
