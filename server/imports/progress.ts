export interface TransferProgress {
  receivedObjects: number;
  totalObjects: number;
  percent: number;
}

// git fetch --progress: "Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s" (also the
// server's "remote: Counting objects: ..." lines, which come before any object arrives).
const RECEIVING = /Receiving objects:\s+(\d+)% \((\d+)\/(\d+)\)/;

/** The transfer progress a line of git's stderr reports, or null for other lines. */
export function parseFetchProgress(line: string): TransferProgress | null {
  const match = RECEIVING.exec(line);
  if (!match) return null;
  return { percent: Number(match[1]), receivedObjects: Number(match[2]), totalObjects: Number(match[3]) };
}
