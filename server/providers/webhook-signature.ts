/** Checks GitHub's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body, constant-time compare). */
export async function verifyWebhookSignature(
  secret: string,
  rawBody: string,
  signature: string | null,
): Promise<boolean> {
  if (!signature || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  // Loaded by the first webhook delivery, not by every server.
  const { verify } = await import("@octokit/webhooks-methods");
  try {
    return await verify(secret, rawBody, signature);
  } catch {
    return false;
  }
}
