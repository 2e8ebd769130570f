import { expect, it } from "vitest";
import { config } from "@/server/config";
import { db } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";

useTestEnvironment();

it("a transaction waits its turn behind a long one instead of failing after Prisma's default 2 s", async () => {
  const prisma = await db();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // On PGlite (one connection) the second waits for the first; on PostgreSQL both hold a connection.
  const long = prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1`;
    await held;
  });
  const second = prisma.$transaction(async (tx) => (await tx.$queryRaw<Array<{ n: number }>>`SELECT 2 AS n`)[0].n);
  setTimeout(release, 3_000);
  await expect(second).resolves.toBe(2);
  await long;
}, 20_000);

it("a query waits for a pooled connection while every one is busy longer than a connect may take", async () => {
  const prisma = await db();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // Every connection of the pool (PGlite's one) in a transaction that outlasts the 5 s connect bound.
  const busy = Array.from({ length: config.databasePoolSize }, () =>
    prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      await held;
    }),
  );
  const waiting = prisma.$queryRaw<Array<{ n: number }>>`SELECT 3 AS n`;
  setTimeout(release, 6_000);
  await expect(waiting).resolves.toEqual([{ n: 3 }]);
  await Promise.all(busy);
}, 30_000);
