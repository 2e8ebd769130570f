import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

type Responder = (request: Received) => { status: number; body?: string } | "hang";

/**
 * A real HTTP receiver on 127.0.0.1 recording every request. `respond` decides each answer
 * (default 200); "hang" never answers (for timeouts).
 */
export async function startReceiver(respond: Responder = () => ({ status: 200, body: "ok" })) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let responder = respond;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: performance.now() };
      received.push(entry);
      waiters.splice(0).forEach((wake) => wake());
      const answer = responder(entry);
      if (answer === "hang") return;
      res.writeHead(answer.status, { "content-type": "text/plain" });
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    setResponder(next: Responder) {
      responder = next;
    },
    /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    /** Ends every open connection, hung requests included (their callers see a reset). */
    dropConnections() {
      server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
