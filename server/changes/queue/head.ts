import type { QueueEntry } from "@/server/generated/prisma/client";
import { usernameSql } from "@/server/auth";
import { dateFromJson } from "@/server/db";
import type { ProjectAlongside } from "@/server/projects";
import { changeFactsFromJson, changeFactsPairsSql, type ChangeFacts, type ChangeFactsJson } from "../merge/facts";

/** An entry at the head of its project's queue, with everything a turn decides on. */
export type HeadEntry = QueueEntry &
  ChangeFacts & {
    /** The enqueuer's username (the landing's signature). */
    enqueuer: string | null;
  };

type HeadJson = ChangeFactsJson & {
  entry: Omit<QueueEntry, "seq" | "enqueuedAt"> & { seq: string; enqueuedAt: string };
  enqueuer: string | null;
};

function headEntryOf({ entry, enqueuer, ...facts }: HeadJson): HeadEntry {
  return {
    ...entry,
    seq: BigInt(entry.seq),
    enqueuedAt: dateFromJson(entry.enqueuedAt),
    ...changeFactsFromJson(facts),
    enqueuer,
  };
}

/**
 * The first `limit` entries of the project's queue, oldest first, each with its change, its
 * workspace's name, whether its evaluation passed, its live verdicts, its enqueuer's username and
 * its agent's model: a turn's whole reading, read with the project in one statement (the projects
 * area's `findProjectAlongside`). It was eight statements, each waiting its turn behind a fleet's
 * (0.2-0.9 s apiece in a wave, measured), and the turn is what every queued change waits for.
 */
export const queueHeadAlongside = (limit: number): ProjectAlongside<HeadEntry[]> => ({
  sql: (projectId) => `(
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'entry', to_jsonb(q) - 'seq' || jsonb_build_object('seq', q.seq::text),
           'enqueuer', ${usernameSql('q."enqueuedById"')},${changeFactsPairsSql("c")}) ORDER BY q.seq), '[]'::jsonb)
    FROM (SELECT * FROM "QueueEntry" WHERE "projectId" = ${projectId} ORDER BY seq LIMIT ${Number(limit)}) AS q
    JOIN "Change" AS c ON c.id = q."changeId")`,
  fromJson: (value) => (value as HeadJson[]).map(headEntryOf),
});
