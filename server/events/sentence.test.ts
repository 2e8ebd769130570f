import { describe, expect, it } from "vitest";
import { eventSentence, sentenceText, type EventSubject } from "./sentence";

const change: EventSubject = { kind: "change", id: "c1", number: 12, title: "Add retries" };
const names: Record<string, string> = { "user:a": "alice", "agent:f": "alice's agent fixer", "user:b": "bob" };
const say = (kind: string, actor: string, data: Record<string, unknown>, subject: EventSubject | null) =>
  sentenceText(eventSentence({ kind, actor, data }, subject), (who) => names[who] ?? who);

describe("eventSentence", () => {
  it("says who did what to which change or issue, by number and title", () => {
    expect(say("change.created", "agent:f", { changeId: "c1" }, change)).toBe(
      "alice's agent fixer opened change !12 'Add retries'",
    );
    expect(say("change.merged", "user:b", { changeId: "c1" }, change)).toBe("bob merged change !12 'Add retries'");
    expect(say("change.reviewed", "user:b", { verdict: "request_changes" }, change)).toBe(
      "bob requested changes on change !12 'Add retries'",
    );
    expect(say("change.queued", "user:b", {}, change)).toBe("bob queued change !12 'Add retries' for merge");
    expect(say("change.evaluated", "user:a", { verdict: "failed" }, change)).toBe(
      "The evaluation of change !12 'Add retries' failed",
    );
    const issue: EventSubject = { kind: "issue", id: null, number: 3, title: "Flaky" };
    expect(say("issue.closed", "user:a", {}, issue)).toBe("alice closed issue #3 'Flaky'");
  });

  it("names a change from before numbers, and the project's own events, in words", () => {
    expect(say("change.rejected", "user:a", {}, { kind: "change", id: "c1", number: null, title: null })).toBe(
      "alice rejected change",
    );
    expect(say("workspace.created", "user:a", { workspace: "ws-1" }, null)).toBe("alice created workspace ws-1");
    expect(say("push", "user:a", { ref: "refs/heads/main", after: "abcdef123456" }, null)).toBe(
      "alice pushed to main (now abcdef1)",
    );
    expect(say("project.created", "user:a", {}, null)).toBe("alice created the project");
    expect(say("tag.created", "user:a", { tag: "v1" }, null)).toBe("alice created tag v1");
    expect(say("something.new", "user:a", {}, null)).toBe("alice did something.new");
  });
});
