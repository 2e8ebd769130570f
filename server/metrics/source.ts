export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

/**
 * What an area contributes to the metrics: a family read from its own tables at scrape time. Areas
 * export plain objects of this shape (`metrics` from their index.ts) and never import this module,
 * so the metrics area gathers them without a cycle.
 */
export interface MetricSource {
  name: string;
  help: string;
  /** A counter here is a total counted from database rows (it survives restarts and agrees across instances). */
  type: "gauge" | "counter";
  /** The family's one label, if it has one. */
  label?: string;
  /** Every value the label can take, reported at 0 when no row has it. */
  labelValues?: readonly string[];
  /**
   * A constant query over the area's own tables answering rows `(label, value)`: `label` the label's
   * value (NULL for a family without a label), `value` a number. The queries of every family run as
   * one statement per scrape (one round trip, one snapshot).
   */
  sql: string;
}

/** The samples of one family from its rows, with every declared label value present (0 when absent). */
export function samplesOf(source: MetricSource, rows: Array<{ label: string | null; value: number }>): MetricSample[] {
  const { label } = source;
  if (!label) return rows.map((row) => ({ labels: {}, value: row.value }));
  const samples = rows.map((row) => ({ labels: { [label]: row.label ?? "" }, value: row.value }));
  const present = new Set(rows.map((row) => row.label));
  return [
    ...samples,
    ...(source.labelValues ?? [])
      .filter((value) => !present.has(value))
      .map((value) => ({ labels: { [label]: value }, value: 0 })),
  ];
}
