import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { withRepoLock, withRepoLocksHeld, type RepoLock } from "./lock";
import { openProjectRepo, openWorkspaceRepo } from "./repo";
import { useTestEnvironment } from "@/tests/support/harness";

// Each hold below keeps a pooled connection on PostgreSQL: the default pool has room for all.
useTestEnvironment();

/** A hold of `lock` that returns once it holds, with its release. */
async function hold(lock: RepoLock, order: string[], name: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holds = new Promise<void>((resolve) => (held = resolve));
  const done = withRepoLock(lock, async () => {
    order.push(name);
    held();
    await released;
  });
  await holds;
  return { release, done };
}

it("the workspaces of one project move their refs side by side, not in the project's turn", async () => {
  const project = "6f1e0c9e-0000-4000-8000-00000000a001";
  const [main, first, second] = [
    openProjectRepo(project),
    openWorkspaceRepo(project, "a"),
    openWorkspaceRepo(project, "b"),
  ];
  expect(new Set([main.lockKey, first.lockKey, second.lockKey]).size).toBe(3);
  expect([main.lockGroup, first.lockGroup, second.lockGroup]).toEqual([project, project, project]);
  const order: string[] = [];
  const landing = await hold(main, order, "project");
  const committing = await hold(first, order, "workspace a");
  // A second workspace's writer runs while both are held; one of the same workspace waits its turn.
  const again = withRepoLock(first, async () => void order.push("workspace a again"));
  await withRepoLock(second, async () => void order.push("workspace b"));
  expect(order).toEqual(["project", "workspace a", "workspace b"]);
  committing.release();
  landing.release();
  await Promise.all([again, committing.done, landing.done]);
  expect(order.at(-1)).toBe("workspace a again");
});

it.runIf(process.env.TEST_DATABASE_URL)(
  "a hold of a project's refs (a backup) waits for every repository's writer and holds off the next (PostgreSQL)",
  async () => {
    const project = "6f1e0c9e-0000-4000-8000-00000000a002";
    const order: string[] = [];
    const writer = await hold(openWorkspaceRepo(project, "a"), order, "workspace a");
    const backup = withRepoLocksHeld([project], async () => void order.push("backup"));
    await sleep(100);
    // Another workspace's writer that comes after the backup waits for it.
    const later = withRepoLock(openWorkspaceRepo(project, "b"), async () => void order.push("workspace b"));
    await sleep(100);
    expect(order).toEqual(["workspace a"]);
    writer.release();
    await Promise.all([writer.done, backup, later]);
    expect(order).toEqual(["workspace a", "backup", "workspace b"]);
  },
  30_000,
);
