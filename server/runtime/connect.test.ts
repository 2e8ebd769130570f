import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort as closedPort } from "@/tests/support/ports";
import { closeDatabase, database } from "@/server/db/client";
import { withEnv } from "@/tests/support/env";
import { connectAtStartup } from "./connect";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-connect-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it("gives up after its time with a message naming the database but not its password; a later open starts afresh", async () => {
  const port = await closedPort();
  await withEnv(
    { DATABASE_URL: `postgresql://svc:hunter2secret@127.0.0.1:${port}/forge`, DATA_DIR: dataDir },
    async () => {
      const failure = connectAtStartup({ timeoutMs: 1_000 }).catch((error: Error) => error);
      const error = await failure;
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/forge after \\d+ attempts: `),
      );
      expect((error as Error).message).not.toContain("hunter2secret");
    },
  );
  await withEnv({ DATABASE_URL: undefined, DATA_DIR: dataDir }, async () => {
    const opened = await database();
    expect(opened.kind).toBe("pglite");
    await closeDatabase();
  });
}, 60_000);
