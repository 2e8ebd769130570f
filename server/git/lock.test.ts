import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { db } from "@/server/db";
import { withRepoLock } from "./lock";
import { useTestEnvironment } from "@/tests/support/harness";

// Two pooled connections on PostgreSQL, so two waiting transactions fill the pool.
useTestEnvironment({ DATABASE_POOL_SIZE: "2" });

it("a ref lock taken outside a transaction never waits for a connection its own waiters hold (the pool cannot deadlock)", async () => {
  const prisma = await db();
  const order: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holds = new Promise<void>((resolve) => (held = resolve));
  const holding = withRepoLock("deadlock-probe", async () => {
    order.push("holder");
    held();
    await released;
  });
  await holds;
  // A caller without a transaction (opening a change pins its tip so) queues behind the holder...
  const outside = withRepoLock("deadlock-probe", async () => void order.push("outside"));
  await sleep(50);
  // ...and callers inside transactions (workspace commits) take the pool's connections and queue too.
  const inside = ["inside 1", "inside 2"].map((name) =>
    prisma.$transaction(async (tx) => withRepoLock("deadlock-probe", async () => void order.push(name), { tx }), {
      maxWait: 15_000,
    }),
  );
  await sleep(50);
  release();
  // Had the outside caller taken the lock before its connection, it would wait for one that the
  // insides hold while they wait for its lock, until the pool's wait failed someone.
  await Promise.all([holding, outside, ...inside]);
  expect(order[0]).toBe("holder");
  expect(order.slice(1).sort()).toEqual(["inside 1", "inside 2", "outside"]);
}, 30_000);
