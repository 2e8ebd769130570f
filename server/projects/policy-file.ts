import { actorOf, type Identity } from "@/server/auth";
import { recordEvent } from "@/server/events";
import { conflict, invalid } from "@/server/errors";
import { branchRef, commitToBranch, openProjectRepo, readFile, resolveBranch } from "@/server/git";
import { parsePolicy, POLICY_PATH, type Policy } from "@/server/policy";
import { assertNotDeleting, requireProject } from "./access";
import { commitAuthorship } from "./authorship";
import { assertNotImporting } from "./imported";

type ProjectRef = { namespace: string; slug: string };

export interface PolicyFile {
  path: string;
  branch: string;
  /** The default branch's tip the policy was read at (an edit must land on it). */
  commit: string;
  /** The file's text; null when there is none (the defaults apply). */
  text: string | null;
  /** The policy in force, or why the file is refused (then merges are refused too). */
  policy: Policy | null;
  error: string | null;
}

/** `.svc/policy.yml` on the default branch, as text and as the policy it gives (readers). */
export async function readPolicyFile(identity: Identity, ref: ProjectRef): Promise<PolicyFile> {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  const repo = openProjectRepo(project.id);
  const commit = resolveBranch(repo, project.defaultBranch);
  const file = await readFile(repo, commit, POLICY_PATH);
  const text = file?.kind === "content" ? (file.value ?? null) : null;
  const parsed = file && file.kind !== "content" ? null : parsePolicy(text);
  return {
    path: POLICY_PATH,
    branch: project.defaultBranch,
    commit,
    text,
    policy: parsed?.ok ? parsed.policy : null,
    error: parsed === null ? `${POLICY_PATH} is not a readable text file` : parsed.ok ? null : parsed.error,
  };
}

/**
 * Commits a new `.svc/policy.yml` to the default branch through the door (admins): refused with 400
 * when it does not parse as a policy, and with 409 when the branch moved since `expectedCommit`.
 */
export async function writePolicyFile(
  identity: Identity,
  ref: ProjectRef,
  input: { text: string; expectedCommit: string; message?: string },
): Promise<{ commit: string }> {
  const { project } = await requireProject(identity, ref, "admin");
  assertNotDeleting(project);
  assertNotImporting(project);
  const parsed = parsePolicy(input.text);
  if (!parsed.ok) throw invalid(parsed.error, "VALIDATION_ERROR");
  const repo = openProjectRepo(project.id);
  const branch = project.defaultBranch;
  if (resolveBranch(repo, branch) !== input.expectedCommit)
    throw conflict(`${branch} moved since the policy was read: read it again`, "CONFLICT");
  const { author, committer } = commitAuthorship(identity);
  const actor = actorOf(identity);
  const { oid } = await commitToBranch(repo, branch, {
    files: { [POLICY_PATH]: input.text },
    message: input.message?.trim() || `Update ${POLICY_PATH}`,
    author,
    committer,
    expectedTip: input.expectedCommit,
    // A commit to the branch is a push to its subscribers (deployments, webhooks), as a web edit is on GitHub.
    recordMove: (tx, move) =>
      recordEvent(tx, {
        projectId: project.id,
        kind: "push",
        actor,
        data: { ref: branchRef(branch), before: move.parent, after: move.oid },
      }),
    move: { project, workspace: null, actor, cause: "commit", changeIds: [] },
  });
  return { commit: oid };
}
