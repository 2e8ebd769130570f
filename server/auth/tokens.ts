import crypto from "node:crypto";

export const USER_TOKEN_PREFIX = "svc_user_";
export const AGENT_TOKEN_PREFIX = "svc_agent_";
/** MCP/CLI OAuth grants: a user's scoped credential that admin routes refuse. */
export const OAUTH_TOKEN_PREFIX = "svc_oauth_";
/** How many leading characters of a token are kept as its non-secret, displayable prefix. */
const DISPLAY_PREFIX_LENGTH = 16;

export function mintToken(prefix: string): { plaintext: string; hash: string; displayPrefix: string } {
  const plaintext = prefix + crypto.randomBytes(24).toString("base64url");
  return { plaintext, hash: hashToken(plaintext), displayPrefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Tokens are stored as SHA-256 hex; lookups go by hash, so plaintext never rests in the database. */
export function hashToken(plaintext: string): string {
  return crypto.createHash("sha256").update(plaintext).digest("hex");
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/** Reads a bearer token from `Authorization: Bearer x` or HTTP Basic (token as password, for git). */
export function credentialFromHeader(header: string | null): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme)) return value.trim();
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const password = colon >= 0 ? decoded.slice(colon + 1) : decoded;
    return password || undefined;
  }
  return undefined;
}
