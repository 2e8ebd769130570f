import { describe, expect, it } from "vitest";
import { completedProgress, parseFetchProgress } from "./progress";

describe("parseFetchProgress", () => {
  it("reads git's receiving and unpacking lines, and the announced total before any object arrives", () => {
    expect(parseFetchProgress("Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s", null)).toEqual({
      percent: 45,
      receivedObjects: 450,
      totalObjects: 1000,
    });
    expect(parseFetchProgress("Unpacking objects: 100% (3/3), 210 bytes | 70.00 KiB/s, done.", null)).toEqual({
      percent: 100,
      receivedObjects: 3,
      totalObjects: 3,
    });
    const announced = parseFetchProgress("remote: Total 5000 (delta 10), reused 0 (delta 0), pack-reused 0", null);
    expect(announced).toEqual({ percent: 0, receivedObjects: 0, totalObjects: 5000 });
    expect(
      parseFetchProgress("remote: Total 5000 (delta 10)", { percent: 45, receivedObjects: 450, totalObjects: 1000 }),
    ).toBeNull();
    expect(parseFetchProgress("remote: Counting objects:  33% (1/3)", null)).toBeNull();
    expect(completedProgress(announced)).toEqual({ percent: 100, receivedObjects: 5000, totalObjects: 5000 });
    expect(completedProgress(null)).toBeNull();
  });
});
