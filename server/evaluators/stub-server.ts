import http from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A real HTTP server on 127.0.0.1 for tests of outbound evaluators (webhook, llm): `reply` decides
 * each answer; every request is recorded.
 */
export async function startStubServer(
  reply: (request: StubRequest) => { status?: number; body?: unknown; delayMs?: number },
) {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      };
      requests.push(request);
      const answer = reply(request);
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" });
        res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {}));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
