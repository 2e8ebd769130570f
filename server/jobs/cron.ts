/**
 * Five-field cron expressions in UTC (`*`, lists, ranges, steps, month and weekday names, the
 * `@hourly`-style macros), as Inngest accepts them. A `TZ=` prefix other than UTC is refused.
 */
export interface CronSchedule {
  /** The first fire time strictly after `after`. */
  next(after: Date): Date;
}

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const NAMES: Record<number, string[]> = {
  3: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
  4: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

const BOUNDS: Array<[number, number]> = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

function parseValue(raw: string, field: number): number {
  const names = NAMES[field];
  const named = names?.indexOf(raw.toLowerCase()) ?? -1;
  if (named >= 0) return field === 3 ? named + 1 : named;
  if (!/^\d+$/.test(raw)) throw new Error(`invalid cron value "${raw}"`);
  return Number(raw);
}

function parseField(raw: string, field: number): { values: Set<number>; any: boolean } {
  const [min, max] = BOUNDS[field];
  const values = new Set<number>();
  for (const part of raw.split(",")) {
    const [range, stepRaw] = part.split("/");
    const step = stepRaw === undefined ? 1 : Number(stepRaw);
    if (!Number.isInteger(step) || step < 1) throw new Error(`invalid cron step "${part}"`);
    let from: number;
    let to: number;
    if (range === "*") {
      [from, to] = [min, max];
    } else if (range.includes("-")) {
      const [a, b] = range.split("-");
      [from, to] = [parseValue(a, field), parseValue(b, field)];
    } else {
      from = parseValue(range, field);
      to = stepRaw === undefined ? from : max;
    }
    if (from < min || to > max || from > to) throw new Error(`cron value out of range in "${part}"`);
    for (let v = from; v <= to; v += step) values.add(field === 4 && v === 7 ? 0 : v);
  }
  return { values, any: raw === "*" };
}

export function parseCron(expression: string): CronSchedule {
  let source = expression.trim();
  const tz = /^(?:CRON_)?TZ=(\S+)\s+/.exec(source);
  if (tz) {
    if (tz[1] !== "UTC" && tz[1] !== "Etc/UTC")
      throw new Error(`cron time zone "${tz[1]}" is not supported (UTC only)`);
    source = source.slice(tz[0].length);
  }
  source = MACROS[source] ?? source;
  const parts = source.split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron "${expression}" must have five fields`);
  const [minutes, hours, days, months, weekdays] = parts.map(parseField);
  const dayMatches = (date: Date): boolean => {
    const dom = days.values.has(date.getUTCDate());
    const dow = weekdays.values.has(date.getUTCDay());
    if (days.any) return dow;
    if (weekdays.any) return dom;
    return dom || dow;
  };
  return {
    next(after) {
      const t = new Date(after.getTime());
      t.setUTCSeconds(0, 0);
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      const limit = after.getTime() + 5 * 366 * 24 * 3600_000;
      while (t.getTime() <= limit) {
        if (!months.values.has(t.getUTCMonth() + 1)) {
          t.setUTCMonth(t.getUTCMonth() + 1, 1);
          t.setUTCHours(0, 0);
        } else if (!dayMatches(t)) {
          t.setUTCDate(t.getUTCDate() + 1);
          t.setUTCHours(0, 0);
        } else if (!hours.values.has(t.getUTCHours())) {
          t.setUTCHours(t.getUTCHours() + 1, 0);
        } else if (!minutes.values.has(t.getUTCMinutes())) {
          t.setUTCMinutes(t.getUTCMinutes() + 1);
        } else {
          return t;
        }
      }
      throw new Error(`cron "${expression}" never fires`);
    },
  };
}
