import { db } from "@/server/db";
import { isUuid, type Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { agentNames } from "@/server/agents";
import { eventSubjects, eventsByActor } from "@/server/events";
import { sharedOrgsOf } from "@/server/orgs";
import { grantedProjectIds, projectPath, projectsOwnedBy } from "@/server/projects";
import { PROFILE_ACTIVITY_MAX } from "@/server/limits";

export interface ActorName {
  actor: string;
  kind: "user" | "agent" | "system" | "unknown";
  /** The user's username; for an agent, its owner's. Null when the row is gone. */
  username: string | null;
  /** That user's display name, when they set one. */
  displayName: string | null;
  /** The agent's name (agents only). */
  agentName: string | null;
}

const parse = (actor: string) => {
  const [kind, id] = actor.split(":", 2);
  return { kind, id: id ?? "" };
};

/**
 * Who the actors of events and rows are ("user:<id>", "agent:<id>", "system"), as pages name them.
 * Usernames are public (a username is a namespace); an agent is named with its owner.
 */
export async function actorNames(actors: string[]): Promise<ActorName[]> {
  const unique = [...new Set(actors)];
  const ids = (kind: string) =>
    unique
      .map(parse)
      .filter((parsed) => parsed.kind === kind && isUuid(parsed.id))
      .map((parsed) => parsed.id);
  const [users, agents] = await Promise.all([
    (async () => {
      const wanted = ids("user");
      return wanted.length === 0
        ? []
        : (await db()).user.findMany({
            where: { id: { in: wanted } },
            select: { id: true, username: true, displayName: true },
          });
    })(),
    agentNames(ids("agent")),
  ]);
  const usersById = new Map(users.map((user) => [user.id, user]));
  const agentsById = new Map(agents.map((agent) => [agent.id, agent]));
  const nobody = { username: null, displayName: null, agentName: null };
  return unique.map((actor): ActorName => {
    const { kind, id } = parse(actor);
    if (actor === "system") return { actor, kind: "system", ...nobody };
    if (kind === "user") {
      const user = usersById.get(id);
      return {
        actor,
        kind: "user",
        ...nobody,
        username: user?.username ?? null,
        displayName: user?.displayName ?? null,
      };
    }
    if (kind === "agent") {
      const agent = agentsById.get(id);
      return {
        actor,
        kind: "agent",
        ...nobody,
        username: agent?.ownerUsername ?? null,
        agentName: agent?.name ?? null,
      };
    }
    return { actor, kind: "unknown", ...nobody };
  });
}

/** The display names of these usernames (those who set one; deleted users are left out). */
export async function displayNames(usernames: string[]): Promise<Array<{ username: string; displayName: string }>> {
  if (usernames.length === 0) return [];
  const rows = await (
    await db()
  ).user.findMany({
    where: {
      username: { in: [...new Set(usernames)] },
      displayName: { not: null },
      isTombstone: false,
      deletingAt: null,
    },
    select: { username: true, displayName: true },
  });
  return rows.map((row) => ({ username: row.username, displayName: row.displayName! }));
}

/**
 * A person's profile as `viewer` may see it: the projects they own that the viewer can read, the
 * organizations the viewer shares with them (all of them for themselves), and their recent events
 * on projects the viewer can read. A missing, deleted or tombstone user is 404.
 */
export async function userProfile(viewer: Identity, username: string) {
  const user = await (
    await db()
  ).user.findUnique({
    where: { username },
    select: {
      id: true,
      username: true,
      displayName: true,
      avatarUrl: true,
      isTombstone: true,
      deletingAt: true,
      createdAt: true,
    },
  });
  if (!user || user.isTombstone || user.deletingAt) throw notFound(`User ${username} not found`);
  const [projects, orgs, granted] = await Promise.all([
    projectsOwnedBy(viewer, user.id),
    sharedOrgsOf(viewer, user.id),
    grantedProjectIds(viewer),
  ]);
  const events = await eventsByActor(`user:${user.id}`, granted, PROFILE_ACTIVITY_MAX);
  const paths = new Map(projects.map((project) => [project.id, projectPath(project)]));
  const unknown = [
    ...new Set(events.map((event) => event.projectId).filter((id): id is string => id !== null && !paths.has(id))),
  ];
  if (unknown.length > 0) {
    const rows = await (
      await db()
    ).project.findMany({ where: { id: { in: unknown } }, select: { id: true, namespace: true, slug: true } });
    for (const row of rows) paths.set(row.id, projectPath(row));
  }
  const subjects = await eventSubjects(events.map((event) => ({ kind: event.kind, data: event.data })));
  return {
    user: {
      id: user.id,
      username: user.username,
      displayName: user.displayName,
      avatarUrl: user.avatarUrl,
      createdAt: user.createdAt.toISOString(),
    },
    projects: projects.map((project) => ({
      path: projectPath(project),
      visibility: project.visibility,
      updatedAt: project.updatedAt.toISOString(),
    })),
    orgs,
    activity: events.map((event, i) => ({
      id: event.id,
      kind: event.kind,
      actor: event.actor,
      subject: subjects[i],
      project: event.projectId ? (paths.get(event.projectId) ?? null) : null,
      occurredAt: event.occurredAt,
      data: event.data,
    })),
  };
}
