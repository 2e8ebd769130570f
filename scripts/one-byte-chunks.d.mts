export function oneByteSource(source: string): string;
export function twoByteServerChunks(nextDir: string): string[];
export function oneByteServerChunks(nextDir: string): string[];
