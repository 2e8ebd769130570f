import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInvalidationListener } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { call, fetchInProcess } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { rejectElsewhere } from "@/tests/support/other-instance";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

const env = useTestEnvironment();

interface Frame {
  id: string;
  event: string;
  data: { change: { id: string; status: string } };
}

/** Opens the stream and reads it frame by frame (comments are skipped). */
async function openEvents(changeId: string, token: string, lastEventId?: string) {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (lastEventId) headers["last-event-id"] = lastEventId;
  const res = await fetchInProcess(`http://svc.test/api/changes/${changeId}/events`, {
    headers,
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  async function next(): Promise<Frame | null> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(":")) continue;
        const fields = Object.fromEntries(
          block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
        );
        return { id: fields.id, event: fields.event, data: JSON.parse(fields.data) };
      }
      if (done) return null;
      const chunk = await reader.read();
      if (chunk.done) done = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  }
  return { res, next, close: () => controller.abort() };
}

describe("GET /api/changes/{id}/events", () => {
  it("sends the current state, then each transition in order, and ends after the merge", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const stream = await openEvents(change.id, owner.token);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toBe("text/event-stream");
    const first = await stream.next();
    expect(first).toMatchObject({ event: "change.state", data: { change: { id: change.id, status: "accepted" } } });
    const got = await call("GET", `/api/changes/${change.id}`, { token: owner.token });
    expect(first!.data).toEqual(got.body);

    expect(
      (await call("POST", `/api/changes/${change.id}/comments`, { token: owner.token, body: { body: "first" } }))
        .status,
    ).toBe(201);
    const commented = await stream.next();
    expect(commented).toMatchObject({ event: "change.commented", data: { change: { id: change.id } } });
    expect((await merge(owner.token, change.id)).status).toBe(200);
    const merged = await stream.next();
    expect(merged).toMatchObject({ event: "change.merged", data: { change: { status: "merged" } } });
    expect(await stream.next()).toBeNull();
  });

  it("ends with the final transition even when it commits while the stream is opening", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    // The rejection races the stream's first reads (its transitions, then the change): whichever
    // order they take, the stream must send the rejection and end, never wait for a wake-up it missed.
    for (let attempt = 0; attempt < 12; attempt++) {
      const { change } = await changeWith(owner.token, project, { [`a${attempt}.txt`]: "a\n" });
      const rejectLater = async () => {
        for (let tick = 0; tick < attempt * 25; tick++) await Promise.resolve();
        return call("POST", `/api/changes/${change.id}/reject`, { token: owner.token });
      };
      const [stream, rejected] = await Promise.all([openEvents(change.id, owner.token), rejectLater()]);
      expect(rejected.status).toBe(200);
      const frames: Frame[] = [];
      for (let frame = await stream.next(); frame; frame = await stream.next()) frames.push(frame);
      expect(frames.at(-1)!.data.change.status).toBe("rejected");
    }
  });

  it("resumes after Last-Event-ID without losing what happened while disconnected", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const stream = await openEvents(change.id, owner.token);
    const state = (await stream.next())!;
    stream.close();
    for (const body of ["one", "two"])
      expect(
        (await call("POST", `/api/changes/${change.id}/comments`, { token: owner.token, body: { body } })).status,
      ).toBe(201);
    expect((await call("POST", `/api/changes/${change.id}/reject`, { token: owner.token })).status).toBe(200);

    const resumed = await openEvents(change.id, owner.token, state.id);
    const frames: Frame[] = [];
    for (let frame = await resumed.next(); frame; frame = await resumed.next()) frames.push(frame);
    expect(frames.map((frame) => frame.event)).toEqual(["change.commented", "change.commented", "change.rejected"]);
    expect(new Set(frames.map((frame) => frame.id)).size).toBe(3);

    const again = await openEvents(change.id, owner.token, frames[0].id);
    const rest: string[] = [];
    for (let frame = await again.next(); frame; frame = await again.next()) rest.push(frame.event);
    expect(rest).toEqual(["change.commented", "change.rejected"]);
  });

  it("answers a finished change's state and ends; refuses who cannot read the change", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    expect((await call("GET", `/api/changes/${change.id}/events`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `/api/changes/${change.id}/events`)).status).toBe(404);
    expect((await call("GET", "/api/changes/not-a-change/events", { token: owner.token })).status).toBe(404);
    expect((await merge(owner.token, change.id)).status).toBe(200);
    const stream = await openEvents(change.id, owner.token);
    expect(await stream.next()).toMatchObject({ event: "change.state", data: { change: { status: "merged" } } });
    expect(await stream.next()).toBeNull();
  });

  it("HEAD answers the stream's headers; other methods are 405 with Allow, OPTIONS lists them", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const head = await call("HEAD", `/api/changes/${change.id}/events`, { token: owner.token });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toContain("text/event-stream");
    expect(head.text).toBe("");
    const post = await call("POST", `/api/changes/${change.id}/events`, { token: owner.token, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(post.body).toMatchObject({ error: expect.any(String) });
    const options = await call("OPTIONS", `/api/changes/${change.id}/events`);
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

// A transition committed through another connection (as another instance would) reaches the
// stream through the PostgreSQL channel.
describe.runIf(process.env.TEST_DATABASE_URL)("transitions made by other instances (PostgreSQL)", () => {
  let listener: Awaited<ReturnType<typeof startInvalidationListener>>;
  beforeAll(async () => {
    listener = await startInvalidationListener(env.databaseUrl);
  });
  afterAll(async () => {
    await listener?.stop();
  });

  it("an event recorded and announced elsewhere arrives on the open stream", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const stream = await openEvents(change.id, owner.token);
    await stream.next();
    await rejectElsewhere(env.databaseUrl, { id: change.id, projectId: project.id });
    expect(await stream.next()).toMatchObject({ event: "change.rejected", data: { change: { status: "rejected" } } });
    expect(await stream.next()).toBeNull();
  });
});
