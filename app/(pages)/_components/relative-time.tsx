const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["week", 7 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 hours ago", from an ISO time and the moment of rendering. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of UNITS)
    if (Math.abs(seconds) >= size) return relative.format(Math.trunc(seconds / size), unit);
  return "just now";
}

/** A time as people read it ("2 days ago"), with the exact UTC time on hover and in the markup. */
export function RelativeTime({ iso, fallback = "never" }: { iso: string | null; fallback?: string }) {
  if (!iso) return <span className="muted">{fallback}</span>;
  const exact = `${iso.slice(0, 19).replace("T", " ")} UTC`;
  return (
    <time className="muted" dateTime={iso} title={exact}>
      {relativeTime(iso)}
    </time>
  );
}
