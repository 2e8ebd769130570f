import type { IncomingMessage, ServerResponse } from "node:http";

export function serveGitHttpBackend(
  req: IncomingMessage,
  res: ServerResponse,
  projectRoot: string,
  env?: Record<string, string>,
): void;
