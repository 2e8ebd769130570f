import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { closeDatabase } from "./client";
import { announceInvalidation } from "./invalidation";
import { CHANNEL } from "./topics";

const env = useTestEnvironment();

describe.runIf(process.env.TEST_DATABASE_URL)("invalidations announced on PostgreSQL", () => {
  let listener: pg.Client;
  const received: string[] = [];

  beforeAll(async () => {
    listener = new pg.Client({ connectionString: env.databaseUrl });
    await listener.connect();
    listener.on("notification", (message) => received.push(message.payload ?? ""));
    await listener.query(`LISTEN ${CHANNEL}`);
  });

  afterAll(async () => {
    await listener?.end();
  });

  it("sends what one turn announces together, each announcement once, and every one of them", async () => {
    const topic = `batch-${randomUUID()}`;
    const keys = ["a", "b", "c"];
    // A batch's changes each wake the same things up.
    await Promise.all(Array.from({ length: 12 }, (_, i) => announceInvalidation(topic, keys[i % keys.length])));
    await announceInvalidation(topic, "d");
    const ours = () => received.filter((payload) => payload.startsWith(`${topic}\n`));
    const deadline = Date.now() + 5000;
    while (ours().length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ours().sort()).toEqual(["a", "b", "c", "d"].map((key) => `${topic}\n${key}`));
  });
});

describe("invalidations announced as the database closes", () => {
  it("never open another database: the turn's announcements go to the one written to, or nowhere", async () => {
    const announced = announceInvalidation(`closing-${randomUUID()}`, "k");
    // The file's last write, then its end (a server's shutdown): the database closes before the
    // turn's announcements are sent.
    await closeDatabase();
    await announced;
    expect((globalThis as { __svcDatabase?: unknown }).__svcDatabase).toBeUndefined();
  });
});
