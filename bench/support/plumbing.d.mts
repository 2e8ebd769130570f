export function plumbingCycles(
  cycles: number,
  options?: { warmup?: number; files?: (cycle: number) => Record<string, string> },
): number[];
