import { verify } from "@octokit/webhooks-methods";

/** Checks GitHub's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body, constant-time compare). */
export async function verifyWebhookSignature(secret: string, rawBody: string, signature: string | null): Promise<boolean> {
  if (!signature || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  try {
    return await verify(secret, rawBody, signature);
  } catch {
    return false;
  }
}
