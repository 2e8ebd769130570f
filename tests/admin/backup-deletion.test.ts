import { expect, it } from "vitest";
import { db } from "@/server/db";
import { runBackup } from "@/server/backup";
import { allRefs, openProjectRepo, openWorkspaceRepo } from "@/server/git";
import { changeWith, commitTo, projectWith, workspaceOf, type TestProject } from "@/server/changes/test-fixtures";
import { backupArchive, membersOf, restoreArchive, switchToFreshInstance } from "@/tests/support/backup";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { projectRow, requestImport, uniqueName, useStubProvider } from "@/tests/imports/support";

// No credential cache: the owner's token is checked again against the restored instance.
useTestEnvironment({ AUTH_CACHE_TTL_SECONDS: "0" });
useTestJobs();
const stub = useStubProvider();

type Owner = Awaited<ReturnType<typeof createTestUser>>;
type Manifest = {
  repositories: Array<{ projectId: string; workspace?: string; refs: Record<string, string>; bundle: string | null }>;
};

const rowsOf = (members: Map<string, Buffer>, table: string) =>
  (members.get(`database/${table}.ndjson`)?.toString("utf8") ?? "")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string>);

it("a backup taken while projects are being deleted completes, each project wholly in it or wholly absent", async () => {
  const owner = await createTestUser();
  const projects = [];
  for (let i = 0; i < 8; i++) projects.push(await projectWith(owner.token, { "README.md": `doomed ${i}\n` }));
  for (const project of projects) {
    expect(
      (await call("DELETE", `/api/projects/${project.path}`, { token: owner.token, body: { confirm: project.path } }))
        .status,
    ).toBe(202);
  }
  const backup = await (await db()).backup.create({ data: { id: `bak_deleting_${Date.now()}` } });
  const [done] = await Promise.all([runBackup(backup.id), drainJobs()]);
  expect(done, JSON.stringify(done)).toMatchObject({ status: "completed" });

  const members = await membersOf(await backupArchive(backup.id));
  const manifest = JSON.parse(members.get("manifest.json")!.toString("utf8"));
  const rows = members
    .get("database/Project.ndjson")!
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line).id as string);
  for (const project of projects) {
    const entry = manifest.repositories.find(
      (r: { projectId: string; workspace?: string }) => r.projectId === project.id && !r.workspace,
    );
    expect(Boolean(entry), project.id).toBe(rows.includes(project.id));
    if (entry) expect(members.has(entry.bundle), project.id).toBe(true);
  }
  expect(await (await db()).project.count({ where: { id: { in: projects.map((p) => p.id) } } })).toBe(0);
}, 120_000);

/** A project with a proposed change and a second workspace with a commit of its own. */
async function busyProject(owner: Owner, project: TestProject): Promise<TestProject> {
  await changeWith(owner.token, project, { "src/changed.txt": `${project.id}\n` });
  await commitTo(owner.token, project, await workspaceOf(owner.token, project), { "src/other.txt": "other\n" });
  return project;
}

/** An import of three upstream commits with depth 1: its history ends at a commit whose parent it lacks. */
async function shallowImport(owner: Owner): Promise<TestProject> {
  const upstream = uniqueName("up");
  stub.current.seed("octo", upstream, [{ "src/a.txt": "1\n" }, { "src/a.txt": "2\n" }, { "src/a.txt": "3\n" }]);
  const slug = uniqueName("shallow");
  expect((await requestImport(owner, slug, { url: `${stub.current.url}/octo/${upstream}`, depth: 1 })).status).toBe(
    201,
  );
  await drainJobs({ timeoutMs: 60_000 });
  const row = await projectRow(owner.username, slug);
  return { ...row, path: `@${owner.username}/${slug}` } as unknown as TestProject;
}

/** Each project is wholly in the backup (its rows, its repository and every workspace's) or wholly absent. */
function expectWholeOrAbsent(members: Map<string, Buffer>, projects: TestProject[]) {
  const manifest = JSON.parse(members.get("manifest.json")!.toString("utf8")) as Manifest;
  const projectRows = new Set(rowsOf(members, "Project").map((row) => row.id));
  const workspaceRows = rowsOf(members, "Workspace");
  for (const project of projects) {
    const repositories = manifest.repositories.filter((r) => r.projectId === project.id);
    const inRows = projectRows.has(project.id);
    expect(
      repositories.some((r) => !r.workspace),
      project.id,
    ).toBe(inRows);
    const workspaces = workspaceRows.filter((row) => row.projectId === project.id).map((row) => row.name);
    expect(repositories.flatMap((r) => (r.workspace ? [r.workspace] : [])).sort(), project.id).toEqual(
      inRows ? workspaces.sort() : [],
    );
    for (const { bundle } of repositories) if (bundle) expect(members.has(bundle), bundle).toBe(true);
  }
}

it("backups taken in a loop while projects with workspaces and changes are deleted all complete, each project whole or absent, and the last restores", async () => {
  const owner = await createTestUser();
  const doomed = [];
  for (let i = 0; i < 4; i++)
    doomed.push(await busyProject(owner, await projectWith(owner.token, { "README.md": `doomed ${i}\n` })));
  doomed.push(await busyProject(owner, await shallowImport(owner)));
  const kept = [
    await busyProject(owner, await projectWith(owner.token, { "README.md": "kept\n" })),
    await busyProject(owner, await shallowImport(owner)),
  ];
  await drainJobs();

  const prisma = await db();
  let deleting = true;
  const backups: Array<{ id: string; status?: string; error?: string | null }> = [];
  const takeBackup = async () => {
    const { id } = await prisma.backup.create({ data: { id: `bak_loop_${backups.length}_${Date.now()}` } });
    backups.push({ id, ...(await runBackup(id)) });
  };
  const looping = (async () => {
    while (deleting) await takeBackup();
  })();
  for (const project of doomed) {
    expect(
      (await call("DELETE", `/api/projects/${project.path}`, { token: owner.token, body: { confirm: project.path } }))
        .status,
    ).toBe(202);
  }
  await drainJobs();
  deleting = false;
  await looping;
  await takeBackup();
  expect(await prisma.project.count({ where: { id: { in: doomed.map((p) => p.id) } } })).toBe(0);

  for (const backup of backups) {
    expect(backup, JSON.stringify(backup)).toMatchObject({ status: "completed" });
    expectWholeOrAbsent(await membersOf(await backupArchive(backup.id)), [...doomed, ...kept]);
  }

  // The last backup restores: the kept projects' repositories and workspaces at their refs, the
  // shallow one's history read up to its boundary.
  const last = await backupArchive(backups.at(-1)!.id);
  const refsBefore = kept.map((project) => allRefs(openProjectRepo(project.id)));
  const workspacesBefore = await prisma.workspace.findMany({ where: { projectId: { in: kept.map((p) => p.id) } } });
  const workspaceRefsBefore = workspacesBefore.map((w) => allRefs(openWorkspaceRepo(w.projectId, w.name)));
  await switchToFreshInstance();
  const { restore } = await restoreArchive(last);
  expect(restore, JSON.stringify(restore)).toMatchObject({ status: "completed", projects: kept.length });
  expect(kept.map((project) => allRefs(openProjectRepo(project.id)))).toEqual(refsBefore);
  expect(workspacesBefore.map((w) => allRefs(openWorkspaceRepo(w.projectId, w.name)))).toEqual(workspaceRefsBefore);
  const log = await call("GET", `/api/projects/${kept[1].path}/log`, { token: owner.token });
  expect(log.status, JSON.stringify(log.body)).toBe(200);
  expect(log.body.log).toHaveLength(1);
}, 300_000);
