// CPU per authorized project read (GET /api/projects/{namespace}/{slug} through the REST handler
// in-process, sequential): a team member of the owning organization, whose access the resolver
// gathers from the org role, the team grants and collaborators, against the owner reading their
// own project (the baseline: ownership ends the resolution at once). Rounds alternate the callers
// so drift hits both alike. Embedded PGlite unless DATABASE_URL is set.
// Usage: npx tsx bench/access/run.ts [--requests 2000] [--rounds 3]
import { api, cpuPerCall, finishBench, inProcessBench, median } from "../support/in-process";

const { requests: REQUESTS, rounds: ROUNDS, dataDir } = inProcessBench("access");
const { handleRestRequest } = await import("@/server/api/rest");

/** CPU per read of one project by one caller. */
const cpuPerRead = (token: string, projectPath: string, count: number) =>
  cpuPerCall(
    () =>
      handleRestRequest(
        new Request(`http://bench.test/api/projects/${projectPath}`, { headers: { authorization: `Bearer ${token}` } }),
      ),
    count,
  );

try {
  const owner = await api("POST", "/admin/users", null, { username: "owner" });
  const member = await api("POST", "/admin/users", null, { username: "member" });
  await api("POST", "/orgs", owner.token, { slug: "acme" });
  await api("PUT", "/orgs/acme/members/member", owner.token, { role: "read" });
  await api("POST", "/orgs/acme/teams", owner.token, { slug: "devs" });
  await api("PUT", "/orgs/acme/teams/devs/members/member", owner.token);
  await api("POST", "/projects", owner.token, { name: "shared", org: "acme" });
  await api("PUT", "/orgs/acme/teams/devs/projects/shared", owner.token, { permission: "write" });
  await api("POST", "/projects", owner.token, { name: "own" });

  const warm = Math.min(200, REQUESTS);
  await cpuPerRead(member.token, "@acme/shared", warm);
  await cpuPerRead(owner.token, "@owner/own", warm);
  const team: number[] = [];
  const own: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    own.push(await cpuPerRead(owner.token, "@owner/own", REQUESTS));
    team.push(await cpuPerRead(member.token, "@acme/shared", REQUESTS));
  }
  console.log(
    `${REQUESTS} sequential reads x ${ROUNDS} rounds; ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; node ${process.version}`,
  );
  console.log(`owner reading their own project (baseline): ${median(own).toFixed(3)} ms CPU per request`);
  console.log(`team member reading an org project:         ${median(team).toFixed(3)} ms CPU per request`);
  console.log(`ratio: ${(median(team) / median(own)).toFixed(2)}x (target <= 1.15x)`);
} finally {
  await finishBench(dataDir);
}
