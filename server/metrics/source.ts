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
  labelNames: string[];
  /** For a family with one label: every value it can take, reported at 0 when no row has it. */
  labelValues?: readonly string[];
  read(): Promise<MetricSample[]>;
}

/** The samples with every declared label value present (0 when absent). */
export function withZeroes(source: MetricSource, samples: MetricSample[]): MetricSample[] {
  if (!source.labelValues || source.labelNames.length !== 1) return samples;
  const [label] = source.labelNames;
  const present = new Set(samples.map((sample) => sample.labels[label]));
  return [...samples, ...source.labelValues.filter((value) => !present.has(value)).map((value) => ({ labels: { [label]: value }, value: 0 }))];
}
