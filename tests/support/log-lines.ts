import { setLogDestination } from "@/server/log";
import { withEnv } from "./env";

/** Runs `body` with the service's log at info, collecting its JSON lines (stdout gets none of them). */
export async function withLogLines<T>(body: (lines: Array<Record<string, any>>) => Promise<T>): Promise<T> {
  const lines: Array<Record<string, any>> = [];
  setLogDestination({ write: (line: string) => void lines.push(JSON.parse(line)) });
  try {
    return await withEnv({ LOG_LEVEL: "info" }, () => body(lines));
  } finally {
    setLogDestination(undefined);
  }
}
