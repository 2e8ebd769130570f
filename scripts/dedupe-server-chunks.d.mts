export function duplicateServerChunks(nextDir: string): Map<string, string>;
export function dedupeServerChunks(nextDir: string): { removed: number; bytes: number };
