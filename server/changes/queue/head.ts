import type { Change, QueueEntry } from "@/server/generated/prisma/client";
import { usernameSql } from "@/server/auth";
import { agentModelSql } from "@/server/agents";
import { dateFromJson } from "@/server/db";
import type { ProjectAlongside } from "@/server/projects";
import { workspaceNameSql } from "@/server/workspaces";
import { reviewStateOf, type LiveVerdict, type ReviewState } from "../reviews/rules";
import { changeFromJson, type ChangeJson } from "../read";

/** An entry at the head of its project's queue, with everything a turn decides on. */
export type HeadEntry = QueueEntry & {
  change: Change;
  /** Its change's workspace's name (null: the workspace is gone). */
  workspace: string | null;
  evaluationPassed: boolean;
  reviews: ReviewState;
  /** The enqueuer's username (the landing's signature). */
  enqueuer: string | null;
  /** The model of the change's agent, recorded in its provenance. */
  agentModel: string | null;
};

type HeadJson = {
  entry: Omit<QueueEntry, "seq" | "enqueuedAt"> & { seq: string; enqueuedAt: string };
  change: ChangeJson;
  workspace: string | null;
  passed: boolean;
  reviews: LiveVerdict[];
  enqueuer: string | null;
  agentModel: string | null;
};

function headEntryOf({ entry, change, workspace, passed, reviews, enqueuer, agentModel }: HeadJson): HeadEntry {
  const row = changeFromJson(change);
  return { ...entry, seq: BigInt(entry.seq), enqueuedAt: dateFromJson(entry.enqueuedAt), change: row, workspace, evaluationPassed: passed, reviews: reviewStateOf(row, reviews), enqueuer, agentModel };
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
           'change', to_jsonb(c),
           'workspace', ${workspaceNameSql('c."workspaceId"')},
           'passed', EXISTS (SELECT 1 FROM "Evaluation" AS e WHERE e."changeId" = c.id AND e.verdict = 'passed'),
           'reviews', (SELECT coalesce(jsonb_agg(jsonb_build_object('changeId', r."changeId", 'reviewerId', r."reviewerId", 'verdict', r.verdict)), '[]'::jsonb)
                         FROM "Review" AS r WHERE r."changeId" = c.id AND r."dismissedAt" IS NULL AND r.verdict IN ('approve', 'request_changes')),
           'enqueuer', ${usernameSql('q."enqueuedById"')},
           'agentModel', ${agentModelSql('c."agentId"')}) ORDER BY q.seq), '[]'::jsonb)
    FROM (SELECT * FROM "QueueEntry" WHERE "projectId" = ${projectId} ORDER BY seq LIMIT ${Number(limit)}) AS q
    JOIN "Change" AS c ON c.id = q."changeId")`,
  fromJson: (value) => (value as HeadJson[]).map(headEntryOf),
});
