import type { Identity } from "@/server/auth";
import { conflict, invalid, notFound } from "@/server/errors";
import { recordEvent } from "@/server/events";
import { actorOf } from "@/server/auth";
import {
  isValidBranchName,
  moveTag,
  openProjectRepo,
  readRef,
  RefConflictError,
  runGit,
  type BranchMove,
  type Repo,
} from "@/server/git";
import { assertNotDeleting, commitAuthorship, requireProject } from "@/server/projects";
import { readableRepo, resolveCommit, type ProjectRef } from "./at";

export interface Tag {
  name: string;
  commit: string;
  annotated: boolean;
  message?: string;
  tagger?: { name: string; email: string; date: string };
}

const FORMAT = [
  "%(refname:lstrip=2)",
  "%(objecttype)",
  "%(objectname)",
  "%(*objectname)",
  "%(taggername)",
  "%(taggeremail)",
  "%(taggerdate:unix)",
  "%(contents)",
];
const tagRef = (name: string) => `refs/tags/${name}`;

/** A tag's creation (from null) or deletion (to null) through the door, with its event as the record. */
const tagMove = (
  project: BranchMove["project"],
  identity: Identity,
  name: string,
  from: string | null,
  to: string | null,
): BranchMove => ({
  project,
  workspace: null,
  ref: tagRef(name),
  from,
  to,
  actor: actorOf(identity),
  cause: "tag",
  changeIds: [],
});

/** Every tag, newest first (an annotated tag's date is its tagger's, a lightweight one's its commit's). */
async function allTags(repo: Repo): Promise<Tag[]> {
  const { stdout } = await runGit(
    ["for-each-ref", "--sort=-creatordate", `--format=${FORMAT.join("%00")}%00`, "refs/tags"],
    { gitdir: repo.gitdir },
  );
  const fields = stdout.split("\0");
  const tags: Tag[] = [];
  for (let at = 0; at + FORMAT.length <= fields.length; at += FORMAT.length) {
    const [name, type, oid, peeled, taggerName, taggerEmail, taggerDate, contents] = fields.slice(
      at,
      at + FORMAT.length,
    );
    const tagName = name.replace(/^\n/, "");
    if (type !== "tag") {
      tags.push({ name: tagName, commit: oid, annotated: false });
      continue;
    }
    tags.push({
      name: tagName,
      commit: peeled,
      annotated: true,
      message: contents,
      tagger: {
        name: taggerName,
        email: taggerEmail.replace(/^<|>$/g, ""),
        date: new Date(Number(taggerDate) * 1000).toISOString(),
      },
    });
  }
  return tags;
}

export async function listTags(identity: Identity, ref: ProjectRef, page: { limit: number; offset: number }) {
  const { repo } = await readableRepo(identity, ref);
  const tags = await allTags(repo);
  return { total: tags.length, tags: tags.slice(page.offset, page.offset + page.limit) };
}

/**
 * A new tag at a branch or full commit id (default: the default branch's tip), annotated when a
 * message is given. Tags never move: an existing name is 409 TAG_EXISTS; a branch's name is 409
 * AMBIGUOUS_REF (the reads could not tell them apart). Writers only (404 for anyone else).
 */
export async function createTag(
  identity: Identity,
  ref: ProjectRef,
  input: { name: string; target?: string; message?: string },
) {
  const { project } = await requireProject(identity, ref, "write", { deniedStatus: 404 });
  assertNotDeleting(project);
  const repo = openProjectRepo(project.id);
  if (!isValidBranchName(input.name)) throw invalid(`Invalid tag name ${JSON.stringify(input.name)}`);
  if (readRef(repo, tagRef(input.name))) throw conflict(`Tag ${input.name} already exists`, "TAG_EXISTS");
  if (readRef(repo, `refs/heads/${input.name}`)) throw conflict(`${input.name} is a branch`, "AMBIGUOUS_REF");
  const commit = await resolveTarget(repo, input.target ?? project.defaultBranch);
  const object =
    input.message === undefined ? commit : await writeTagObject(repo, identity, input.name, commit, input.message);
  try {
    await moveTag(repo, tagMove(project, identity, input.name, null, object), (tx) =>
      recordEvent(tx, {
        projectId: project.id,
        kind: "tag.created",
        actor: actorOf(identity),
        data: { tag: input.name, commit, annotated: object !== commit },
      }),
    );
  } catch (error) {
    if (error instanceof RefConflictError) throw conflict(`Tag ${input.name} already exists`, "TAG_EXISTS");
    throw error;
  }
  const [tag] = (await allTags(repo)).filter((candidate) => candidate.name === input.name);
  return { tag };
}

/** A target that does not name a commit is the caller's mistake (400), not a missing page. */
async function resolveTarget(repo: Repo, target: string): Promise<string> {
  try {
    return await resolveCommit(repo, target);
  } catch (error) {
    if ((error as { kind?: string }).kind === "not_found")
      throw invalid(`Target ${target} is not a branch or a full commit id`);
    throw error;
  }
}

async function writeTagObject(
  repo: Repo,
  identity: Identity,
  name: string,
  commit: string,
  message: string,
): Promise<string> {
  const { committer } = commitAuthorship(identity);
  const seconds = Math.floor(Date.now() / 1000);
  const body = `object ${commit}\ntype commit\ntag ${name}\ntagger ${committer.name} <${committer.email}> ${seconds} +0000\n\n${message.endsWith("\n") || message === "" ? message : `${message}\n`}`;
  const { stdout } = await runGit(["mktag"], { gitdir: repo.gitdir, input: body });
  return stdout.trim();
}

/** Deletes a tag (project admins; readers get 403, others 404). */
export async function deleteTag(identity: Identity, ref: ProjectRef, name: string) {
  const { project } = await requireProject(identity, ref, "admin");
  assertNotDeleting(project);
  const repo = openProjectRepo(project.id);
  const oid = isValidBranchName(name) ? readRef(repo, tagRef(name)) : null;
  if (!oid) throw notFound(`Unknown tag ${name}`);
  await moveTag(repo, tagMove(project, identity, name, oid, null), (tx) =>
    recordEvent(tx, {
      projectId: project.id,
      kind: "tag.deleted",
      actor: actorOf(identity),
      data: { tag: name, object: oid },
    }),
  );
  return { deleted: true as const, name };
}
