import { describe, expect, it } from "vitest";
import { commitAuthorActor } from "@/app/(pages)/_lib/commit-author";
import { config } from "@/server/config";

describe("commitAuthorActor", () => {
  const host = () => new URL(config.baseUrl).hostname;

  it("names the user or agent of a signature this forge wrote", () => {
    expect(commitAuthorActor(`alice@users.noreply.${host()}`)).toEqual({ username: "alice" });
    const id = "0f8b2c1e-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
    expect(commitAuthorActor(`agent-${id}@agents.noreply.${host()}`)).toEqual({ agentActor: `agent:${id}` });
  });

  it.each([
    "alice@users.noreply.github.com",
    "12345+alice@users.noreply.github.com",
    "alice@example.com",
    "agent-x@agents.noreply.example.org",
    "@users.noreply.localhost",
    "not an address",
  ])("names no one for %s", (email) => {
    expect(commitAuthorActor(email)).toBeNull();
  });

  it("refuses a local part that is no username, on this forge's host too", () => {
    expect(commitAuthorActor(`-alice@users.noreply.${host()}`)).toBeNull();
    expect(commitAuthorActor(`a.b@users.noreply.${host()}`)).toBeNull();
  });
});
