import { describe, expect, it } from "vitest";
import { RefConflictError } from "@/server/git";
import { DomainError } from "@/server/errors";
import { retryWhenBranchMoves } from "./land";

describe("retryWhenBranchMoves", () => {
  it("redoes the attempt while the branch moves, and succeeds once it holds still", async () => {
    let calls = 0;
    const result = await retryWhenBranchMoves(5, async (n) => {
      calls = n;
      if (n < 3) throw new RefConflictError("refs/heads/main", "a".repeat(40), "b".repeat(40));
      return "landed";
    });
    expect([result, calls]).toEqual(["landed", 3]);
  });

  it("a caller that loses every race gets 409 STALE_BASE with the current head, never CONFLICT", async () => {
    const lost = retryWhenBranchMoves(2, async () => {
      throw new RefConflictError("refs/heads/main", "a".repeat(40), "c".repeat(40));
    });
    await expect(lost).rejects.toBeInstanceOf(DomainError);
    await expect(lost).rejects.toMatchObject({
      kind: "conflict",
      code: "STALE_BASE",
      extra: { currentHead: "c".repeat(40) },
    });
  });

  it("other failures pass through at once", async () => {
    let calls = 0;
    const failing = retryWhenBranchMoves(5, async () => {
      calls++;
      throw new Error("disk full");
    });
    await expect(failing).rejects.toThrow("disk full");
    expect(calls).toBe(1);
  });
});
