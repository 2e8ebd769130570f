import type { Change } from "@/server/generated/prisma/client";
import { agentModelSql } from "@/server/agents";
import type { ProjectAlongside } from "@/server/projects";
import { workspaceNameSql } from "@/server/workspaces";
import { liveVerdictsSql, reviewStateOf, type LiveVerdict, type ReviewState } from "../reviews/rules";
import { changeFromJson, type ChangeJson } from "../read";

/** A change with what its merge gates and its landing's provenance read besides its row. */
export interface ChangeFacts {
  change: Change;
  /** Its workspace's name (null: the workspace is gone). */
  workspace: string | null;
  evaluationPassed: boolean;
  reviews: ReviewState;
  /** The model of the change's agent, recorded in its provenance. */
  agentModel: string | null;
}

export type ChangeFactsJson = {
  change: ChangeJson;
  workspace: string | null;
  passed: boolean;
  reviews: LiveVerdict[];
  agentModel: string | null;
};

/**
 * The JSON object pairs (`'key', value, ...`) of a change's facts, for the change row aliased
 * `alias` of a caller's statement; `changeFactsFromJson` reads them back. Direct merges and the
 * queue's turns read them so, one statement for any number of changes.
 */
export const changeFactsPairsSql = (alias: string) => `
  'change', to_jsonb(${alias}),
  'workspace', ${workspaceNameSql(`${alias}."workspaceId"`)},
  'passed', EXISTS (SELECT 1 FROM "Evaluation" AS e WHERE e."changeId" = ${alias}.id AND e.verdict = 'passed'),
  'reviews', ${liveVerdictsSql(`${alias}.id`)},
  'agentModel', ${agentModelSql(`${alias}."agentId"`)}`;

export function changeFactsFromJson({ change, workspace, passed, reviews, agentModel }: ChangeFactsJson): ChangeFacts {
  const row = changeFromJson(change);
  return { change: row, workspace, evaluationPassed: passed, reviews: reviewStateOf(row, reviews), agentModel };
}

/** One change of the project and its facts, read with the project in one statement (`requireProject`'s `alongside`). */
export const changeFactsAlongside = (changeId: string): ProjectAlongside<ChangeFacts> => ({
  sql: (projectId, param) => `(
  SELECT jsonb_build_object(${changeFactsPairsSql("c")})
    FROM "Change" AS c WHERE c.id = ${param(changeId)}::uuid AND c."projectId" = ${projectId})`,
  fromJson: (value) => changeFactsFromJson(value as ChangeFactsJson),
});

/** The changes of the project among `changeIds` (uuids) and their facts, read with the project in one statement. */
export const changesFactsAlongside = (changeIds: string[]): ProjectAlongside<ChangeFacts[]> => ({
  sql: (projectId, param) => `(
  SELECT coalesce(jsonb_agg(jsonb_build_object(${changeFactsPairsSql("c")})), '[]'::jsonb)
    FROM "Change" AS c WHERE c.id = ANY(${param(changeIds)}::uuid[]) AND c."projectId" = ${projectId})`,
  fromJson: (value) => (value as ChangeFactsJson[]).map(changeFactsFromJson),
});
