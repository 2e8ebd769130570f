import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { cacheCredential, cachedCredential, dropUserCredentials } from "./credential-cache";
import { startInvalidationListener } from "@/server/db";
import "./credential-invalidation";

const env = useTestEnvironment();

describe("credential cache", () => {
  it("does not cache a lookup that read the database before the user's credentials were revoked", () => {
    const userId = "00000000-0000-4000-8000-000000000001";
    const credential = { identity: { kind: "anonymous" as const }, userId, expiresAt: null };
    const readAt = Date.now() - 5;
    dropUserCredentials(userId);
    cacheCredential("stale-read", credential, readAt);
    expect(cachedCredential("stale-read")).toBeUndefined();
    cacheCredential("fresh-read", credential, Date.now() + 1);
    expect(cachedCredential("fresh-read")).toEqual(credential);
  });
});

// Another instance revokes a token: it writes the row and announces the user on the channel. This
// instance had the token cached; its listener must drop it at once (not after AUTH_CACHE_TTL_SECONDS).
describe.runIf(process.env.TEST_DATABASE_URL)("revocations announced by other instances (PostgreSQL)", () => {
  let listener: Awaited<ReturnType<typeof startInvalidationListener>>;

  beforeAll(async () => {
    listener = await startInvalidationListener(env.databaseUrl);
  });

  afterAll(async () => {
    await listener?.stop();
  });

  it("a token revoked elsewhere stops working here within moments", async () => {
    const user = await createTestUser();
    expect((await call("GET", "/api/users/me", { token: user.token })).status).toBe(200);

    const prisma = await db();
    await prisma.user.update({ where: { id: user.id }, data: { legacyTokenDisabledAt: new Date() } });
    // Cached: without the announcement this instance would keep accepting the token.
    expect((await call("GET", "/api/users/me", { token: user.token })).status).toBe(200);

    await prisma.$executeRawUnsafe("SELECT pg_notify('svc_invalidate', $1)", `credentials\n${user.id}`);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await call("GET", "/api/users/me", { token: user.token })).status;
    }
    expect(status).toBe(401);
  });
});
