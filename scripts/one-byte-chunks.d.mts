export function oneByteSource(source: string): string;
export function oneByteServerChunks(nextDir: string): { rewritten: string[]; left: string[] };
