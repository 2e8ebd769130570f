import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { embeddedSigningKey } from "./mode";
import { canonicalJson, signature } from "./protocol";

useTestEnvironment();

const runBody = {
  version: 2,
  event: { name: "svc/domain.event", data: {} },
  events: [],
  steps: {},
  ctx: { run_id: "forged", attempt: 0, use_api: false },
};
const runPath = "/api/inngest?fnId=svc-forge-event-outbox-sweep&stepId=step";

describe("/api/inngest in embedded mode", () => {
  it("refuses an unsigned run request", async () => {
    const res = await call("POST", runPath, { body: runBody });
    expect(res.status).toBe(401);
  });

  it("refuses a run request signed with another key", async () => {
    const body = canonicalJson(runBody);
    const forged = signature(body, `signkey-embedded-${"ab".repeat(32)}`);
    const res = await call("POST", runPath, { body, headers: { "x-inngest-signature": forged } });
    expect(res.status).toBe(401);
  });

  it("refuses unsigned introspection and syncs", async () => {
    expect((await call("GET", "/api/inngest")).status).toBe(401);
    expect((await call("PUT", "/api/inngest", { body: {} })).status).toBe(401);
    const inBand = await call("PUT", "/api/inngest", {
      body: { url: "http://svc.test/api/inngest" },
      headers: { "x-inngest-sync-kind": "in_band" },
    });
    expect(inBand.status).toBe(401);
  });

  it("answers a sync signed with the process's key with the production functions", async () => {
    const body = canonicalJson({ url: "http://svc.test/api/inngest" });
    const res = await call("PUT", "/api/inngest", {
      body,
      headers: { "x-inngest-sync-kind": "in_band", "x-inngest-signature": signature(body, embeddedSigningKey()) },
    });
    expect(res.status).toBe(200);
    const ids = res.body.functions.map((fn: { id: string }) => fn.id);
    expect(ids).toEqual(expect.arrayContaining(["svc-forge-event-outbox-sweep", "svc-forge-deletion-job"]));
  });
});
