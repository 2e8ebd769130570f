import { db } from "@/server/db";
import { ACTIVE_STATUSES } from "./store";

/**
 * Whether the embedded executor has work in hand for an event `eventName` whose data has `key` =
 * `value`: the event still waiting to be dispatched, or a run of it that has not ended.
 */
export async function hasLiveRun(eventName: string, key: string, value: string): Promise<boolean> {
  const prisma = await db();
  const pendingEvent = await prisma.jobEvent.findFirst({
    where: { name: eventName, processedAt: null, data: { path: [key], equals: value } },
    select: { seq: true },
  });
  if (pendingEvent) return true;
  const run = await prisma.jobRun.findFirst({
    where: {
      status: { in: [...ACTIVE_STATUSES] },
      event: { path: ["name"], equals: eventName },
      AND: [{ event: { path: ["data", key], equals: value } }],
    },
    select: { id: true },
  });
  return run !== null;
}
