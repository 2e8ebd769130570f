// A real Redis (Debian's redis-server, started per test file) behind a test-only adapter that
// speaks the Upstash REST protocol, the way an operator runs the shared rate limit: the adapter
// turns `POST /` (one command) and `POST /pipeline` (several) into RESP on a TCP connection and
// answers `{result}` / `{error}`, base64-encoding strings when the client asks (Upstash-Encoding).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports";

export const redisServerInstalled = spawnSync("redis-server", ["--version"]).status === 0;

type Reply = string | number | null | Reply[] | RedisError;
class RedisError {
  constructor(readonly message: string) {}
}

/** Parses one RESP reply from `buffer` at `offset`; undefined while it is incomplete. */
function parseReply(buffer: Buffer, offset: number): { reply: Reply; next: number } | undefined {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd < 0) return undefined;
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (String.fromCharCode(buffer[offset])) {
    case "+":
      return { reply: line, next };
    case "-":
      return { reply: new RedisError(line), next };
    case ":":
      return { reply: Number(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, next };
      if (buffer.length < next + length + 2) return undefined;
      return { reply: buffer.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, next };
      const items: Reply[] = [];
      let cursor = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, cursor);
        if (!item) return undefined;
        items.push(item.reply);
        cursor = item.next;
      }
      return { reply: items, next: cursor };
    }
    default:
      throw new Error(`unexpected RESP type ${buffer[offset]}`);
  }
}

/** One RESP connection; replies arrive in the order commands were sent. */
class RespConnection {
  private pending: Array<(reply: Reply) => void> = [];
  private buffered = Buffer.alloc(0);

  constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      for (let parsed = parseReply(this.buffered, 0); parsed; parsed = parseReply(this.buffered, 0)) {
        this.buffered = this.buffered.subarray(parsed.next);
        this.pending.shift()?.(parsed.reply);
      }
    });
    socket.on("error", () => undefined);
  }

  send(args: Array<string | number>): Promise<Reply> {
    const encoded = args.map((arg) => Buffer.from(String(arg)));
    const frame = Buffer.concat([Buffer.from(`*${encoded.length}\r\n`), ...encoded.flatMap((arg) => [Buffer.from(`$${arg.length}\r\n`), arg, Buffer.from("\r\n")])]);
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.socket.write(frame);
    });
  }
}

const base64Strings = (reply: Reply): unknown =>
  typeof reply === "string" ? (reply === "OK" ? reply : Buffer.from(reply).toString("base64")) : Array.isArray(reply) ? reply.map(base64Strings) : reply;

export interface UpstashRedis {
  url: string;
  token: string;
  /** Upstash REST calls the adapter has received. */
  calls: number;
  /** Delays every answer (a slow Redis). */
  delayMs: number;
  /** Runs a command on Redis directly. */
  command(args: Array<string | number>): Promise<unknown>;
  /** Stops redis-server; the adapter then answers 500 (Redis down). */
  stopRedis(): Promise<void>;
  close(): Promise<void>;
}

export async function startUpstashRedis(): Promise<UpstashRedis> {
  const redisPort = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-redis-"));
  const redis: ChildProcess = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    redis.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("Ready to accept connections") && resolve());
    redis.once("exit", (code) => reject(new Error(`redis-server exited ${code}`)));
  });
  const socket = net.connect(redisPort, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const connection = new RespConnection(socket);
  let redisUp = true;

  const token = "test-upstash-token";
  const state = { calls: 0, delayMs: 0 };
  const adapter = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    state.calls++;
    const answer = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: "Unauthorized" });
    if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (!redisUp) return answer(500, { error: "Redis is down" });
    const encode = req.headers["upstash-encoding"] === "base64" ? base64Strings : (reply: Reply) => reply;
    const run = async (command: Array<string | number>) => {
      const reply = await connection.send(command);
      return reply instanceof RedisError ? { error: reply.message } : { result: encode(reply) };
    };
    const parsed = JSON.parse(body) as Array<string | number> | Array<Array<string | number>>;
    if (req.url === "/pipeline" || req.url === "/multi-exec") {
      const results = [];
      for (const command of parsed as Array<Array<string | number>>) results.push(await run(command));
      return answer(200, results);
    }
    const single = await run(parsed as Array<string | number>);
    return answer("error" in single ? 400 : 200, single);
  });
  await new Promise<void>((resolve) => adapter.listen(0, "127.0.0.1", resolve));
  const { port } = adapter.address() as net.AddressInfo;

  const stopRedis = async () => {
    if (!redisUp) return;
    redisUp = false;
    socket.destroy();
    redis.kill("SIGKILL");
    await new Promise((resolve) => (redis.exitCode !== null ? resolve(null) : redis.once("exit", resolve)));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get calls() {
      return state.calls;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    command: async (args) => {
      const reply = await connection.send(args);
      if (reply instanceof RedisError) throw new Error(reply.message);
      return reply;
    },
    stopRedis,
    async close() {
      await stopRedis();
      adapter.closeAllConnections();
      await new Promise((resolve) => adapter.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
