import { afterAll, beforeAll, expect } from "vitest";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject, type TestProject, type TestUser } from "@/server/issues/test-fixtures";
import { startReceiver, type Receiver } from "./test-receiver";

/**
 * For delivery tests: an owner, a project and a real receiver on 127.0.0.1 (from beforeAll), with
 * helpers that go through the HTTP routes.
 */
export function useWebhookProject() {
  const ctx = {} as { owner: TestUser; project: TestProject; receiver: Receiver };
  beforeAll(async () => {
    ctx.owner = await createTestUser();
    ctx.project = await createTestProject(ctx.owner);
    ctx.receiver = await startReceiver();
  });
  afterAll(() => ctx.receiver.close());

  const asOwner = () => ({ token: ctx.owner.token });
  return {
    ctx,
    async createHook(url = ctx.receiver.url, events = "*") {
      const res = await call("POST", `${ctx.project.base}/webhooks`, { ...asOwner(), body: { url, events } });
      expect(res.status, res.text).toBe(201);
      return res.body.webhook as { id: string; secret: string };
    },
    /** Opens an issue (its issue.opened event is published after commit); answers that event. */
    async openIssueEvent(title: string): Promise<{ id: string; occurredAt: string }> {
      const res = await call("POST", `${ctx.project.base}/issues`, { ...asOwner(), body: { title } });
      expect(res.status).toBe(201);
      return (await call("GET", `${ctx.project.base}/activity?limit=1`, asOwner())).body.events[0];
    },
    async deliveries(hookId: string) {
      return (await call("GET", `${ctx.project.base}/webhooks/${hookId}/deliveries`, asOwner())).body.deliveries;
    },
    async webhook(hookId: string) {
      return (await call("GET", `${ctx.project.base}/webhooks`, asOwner())).body.webhooks.find(
        (h: { id: string }) => h.id === hookId,
      );
    },
    toggle(hookId: string) {
      return call("POST", `${ctx.project.base}/webhooks/${hookId}/toggle`, asOwner());
    },
  };
}
