import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { db, type Tx } from "@/server/db";
import {
  allRefs,
  bundleRepository,
  headBranch,
  openProjectRepo,
  openWorkspaceRepo,
  shallowCommits,
  withRepoLocksHeld,
  withRepositoriesKept,
  type Repo,
} from "@/server/git";
import { MANIFEST, MANIFEST_FORMAT, packArchive, type Manifest, type ManifestRepository } from "./archive";
import { quoteIdent, tablesInDependencyOrder } from "./tables";
import { serviceVersion } from "./version";

// A snapshot holds the database for its whole dump; on PGlite (one connection) that is every query.
const SNAPSHOT_TX = { maxWait: 60_000, timeout: 3_600_000 };

interface Snapshot {
  tables: Record<string, number>;
  repositories: Array<Omit<ManifestRepository, "bundle" | "sha256">>;
}

async function readRepositories(tx: Tx): Promise<Snapshot["repositories"]> {
  const projects = await tx.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM "Project" ORDER BY id`);
  const workspaces = await tx.$queryRawUnsafe<Array<{ projectId: string; name: string }>>(
    `SELECT "projectId"::text AS "projectId", name FROM "Workspace" ORDER BY "projectId", name`,
  );
  const read = (repo: Repo) => {
    const shallow = shallowCommits(repo);
    return {
      head: headBranch(repo) ?? "main",
      refs: Object.fromEntries(allRefs(repo)),
      ...(shallow.length > 0 ? { shallow } : {}),
    };
  };
  return [
    ...projects.map(({ id }) => ({ projectId: id, ...read(openProjectRepo(id)) })),
    ...workspaces.map(({ projectId, name }) => ({
      projectId,
      workspace: name,
      ...read(openWorkspaceRepo(projectId, name)),
    })),
  ];
}

async function dumpTables(tx: Tx, dir: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  fs.mkdirSync(path.join(dir, "database"), { recursive: true });
  for (const table of await tablesInDependencyOrder(tx)) {
    // Rows stay PostgreSQL's JSON text end to end (never parsed), so bigints and timestamps keep every digit.
    const rows = await tx.$queryRawUnsafe<Array<{ row: string }>>(
      `SELECT row_to_json(t)::text AS row FROM ${quoteIdent(table)} t`,
    );
    fs.writeFileSync(path.join(dir, "database", `${table}.ndjson`), rows.map((r) => `${r.row}\n`).join(""));
    counts[table] = rows.length;
  }
  return counts;
}

/**
 * One REPEATABLE READ snapshot of the database, with every repository's refs read while no ref of
 * any project can move: the locks of every project are held from before the snapshot is taken until
 * the refs are read (writers in flight commit first; later ones wait those few milliseconds). The
 * tables are then dumped from the snapshot without holding any lock.
 */
async function takeSnapshot(dir: string): Promise<Snapshot> {
  const prisma = await db();
  const projectIds = (await prisma.project.findMany({ select: { id: true } })).map((project) => project.id);
  let refsRead!: (repositories: Snapshot["repositories"]) => void;
  const refsReady = new Promise<Snapshot["repositories"]>((resolve) => (refsRead = resolve));
  let dump!: Promise<Record<string, number>>;
  const repositories = await withRepoLocksHeld(projectIds, async () => {
    dump = prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      // The first query fixes the snapshot.
      refsRead(await readRepositories(tx));
      return dumpTables(tx, dir);
    }, SNAPSHOT_TX);
    return Promise.race([refsReady, dump.then(() => refsReady)]);
  });
  return { repositories, tables: await dump };
}

const bundleName = (repository: { projectId: string; workspace?: string }) =>
  repository.workspace
    ? `repositories/${repository.projectId}/workspaces/${repository.workspace}.bundle`
    : `repositories/${repository.projectId}.bundle`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest("hex");
}

/** Bundles every repository at its recorded refs; a fork leaves out what its project's bundle has. */
async function bundleAll(dir: string, repositories: Snapshot["repositories"]): Promise<ManifestRepository[]> {
  const projectTips = new Map(
    repositories.filter((r) => !r.workspace).map((r) => [r.projectId, [...new Set(Object.values(r.refs))]]),
  );
  const out: ManifestRepository[] = [];
  for (const repository of repositories) {
    const name = bundleName(repository);
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const repo = repository.workspace
      ? openWorkspaceRepo(repository.projectId, repository.workspace)
      : openProjectRepo(repository.projectId);
    const exclude = repository.workspace ? (projectTips.get(repository.projectId) ?? []) : [];
    const written = await bundleRepository(repo, repository.refs, file, { exclude, shallow: repository.shallow });
    out.push({ ...repository, bundle: written ? name : null, sha256: written ? await sha256Of(file) : null });
  }
  return out;
}

/** Writes a complete backup archive to `outFile`; returns what it holds. */
export async function writeBackupArchive(outFile: string): Promise<{ bytes: number; projects: number }> {
  const staging = `${outFile}.staging`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    // Deletions remove a project's rows, then its repositories: the snapshot holds a project's rows
    // only if its repositories are still there, and they stay until bundled.
    const { snapshot, repositories } = await withRepositoriesKept(async () => {
      const snapshot = await takeSnapshot(staging);
      return { snapshot, repositories: await bundleAll(staging, snapshot.repositories) };
    });
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      createdAt: new Date().toISOString(),
      serviceVersion: serviceVersion(),
      database: { tables: snapshot.tables },
      repositories,
    };
    fs.writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const members = [
      MANIFEST,
      ...Object.keys(snapshot.tables).map((table) => `database/${table}.ndjson`),
      ...repositories.flatMap((r) => (r.bundle ? [r.bundle] : [])),
    ];
    await packArchive(staging, members, outFile);
    return { bytes: fs.statSync(outFile).size, projects: repositories.filter((r) => !r.workspace).length };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
