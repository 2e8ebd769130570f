import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

describe("activity names what each event is about", () => {
  it("gives change and issue events their subject (number and title), on the project and the profile", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect((await merge(alice.token, change.id)).status).toBe(200);
    await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: "Flaky" } });

    const activity = await call("GET", `/api/projects/${project.path}/activity`, { token: alice.token });
    expect(activity.status).toBe(200);
    const byKind = (kind: string) => activity.body.events.find((event: { kind: string }) => event.kind === kind);
    const subject = { kind: "change", id: change.id, number: change.number, title: change.title };
    expect(byKind("change.created").subject).toEqual(subject);
    expect(byKind("change.merged").subject).toEqual(subject);
    expect(byKind("issue.opened").subject).toEqual({ kind: "issue", id: null, number: 1, title: "Flaky" });
    expect(byKind("push").subject).toBeNull();
  });
});
