const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of an Inngest duration string such as "30s", "1h30m" or "2d"; throws on anything else. */
export function parseDuration(value: string): number {
  const source = value.trim();
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;
  let total = 0;
  let matched = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(source))) {
    total += Number(match[1]) * UNIT_MS[match[2]];
    matched = pattern.lastIndex;
  }
  if (!source || matched !== source.length) throw new Error(`invalid duration "${value}"`);
  return total;
}

/** When a `Sleep` op ends: its name is a duration ("2s") for step.sleep or an ISO date for step.sleepUntil. */
export function sleepUntil(name: string, now: number): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(name)) {
    const at = Date.parse(name);
    if (Number.isNaN(at)) throw new Error(`invalid sleep date "${name}"`);
    return at;
  }
  return now + parseDuration(name);
}

/** The delay a `retry-after` header asks for: seconds, or an HTTP or ISO date. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with up to 20% jitter: base, 2x base, 4x base... capped at `maxMs`. */
export function backoffMs(failedAttempts: number, baseMs: number, maxMs: number): number {
  const delay = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(delay * (1 + Math.random() * 0.2));
}
