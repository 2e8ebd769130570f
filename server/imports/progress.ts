export interface TransferProgress {
  receivedObjects: number;
  totalObjects: number;
  percent: number;
}

// git fetch --progress: "Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s", or "Unpacking
// objects: ..." for packs under fetch.unpackLimit objects. The server's "remote: ..." lines are not
// objects received.
const RECEIVING = /(?:Receiving|Unpacking) objects:\s+(\d+)% \((\d+)\/(\d+)\)/;
// "remote: Total 5000 (delta 12), reused ..." announces the pack's size before it is sent (git
// prints no receiving progress at all for a small, fast pack).
const TOTAL = /^remote: Total (\d+) /;

/** The transfer progress a line of git's stderr reports (given the progress so far), or null for other lines. */
export function parseFetchProgress(line: string, previous: TransferProgress | null): TransferProgress | null {
  const receiving = RECEIVING.exec(line);
  if (receiving)
    return { percent: Number(receiving[1]), receivedObjects: Number(receiving[2]), totalObjects: Number(receiving[3]) };
  const total = TOTAL.exec(line);
  if (total && !previous) return { percent: 0, receivedObjects: 0, totalObjects: Number(total[1]) };
  return null;
}

/** The progress of a fetch git reported as done: every announced object arrived. */
export const completedProgress = (progress: TransferProgress | null): TransferProgress | null =>
  progress ? { receivedObjects: progress.totalObjects, totalObjects: progress.totalObjects, percent: 100 } : null;
