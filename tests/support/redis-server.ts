// A real Redis (Debian's redis-server) for one test file, on a free port of 127.0.0.1, that a test
// can pause (a Redis that stops answering), stop (gone) and start again on the same port (back).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@redis/client";
import { freePort } from "./ports";

export const redisServerInstalled = spawnSync("redis-server", ["--version"]).status === 0;

export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  url: string;
  /** Runs a command on its own connection (opened for the call). */
  command(args: string[]): Promise<unknown>;
  /** SIGSTOP: connections stay open but nothing is answered. */
  pause(): void;
  resume(): void;
  /** Kills the server (its data goes with it: no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-redis-"));
  let server: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;

  const start = async () => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    server = child;
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("Ready to accept connections") && resolve());
      child.once("exit", (code) => reject(new Error(`redis-server exited ${code}`)));
    });
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    child.kill("SIGCONT");
    child.kill("SIGKILL");
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once("exit", resolve),
    );
  };
  await start();
  return {
    url,
    async command(args) {
      const client = createClient({ url });
      await client.connect();
      try {
        return await client.sendCommand(args);
      } finally {
        client.destroy();
      }
    },
    pause: () => void server?.kill("SIGSTOP"),
    resume: () => void server?.kill("SIGCONT"),
    stop,
    start,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
