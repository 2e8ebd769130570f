// Benchmark baseline only: copied by run.mjs into the throwaway build under bench/.work/ as
// app/api/bench/bare/route.js, never part of the app. The same JSON as GET /api/users/me, with no
// authentication, rate limit, tRPC or database.
export const dynamic = "force-dynamic";

const profile = {
  id: "00000000-0000-4000-8000-000000000000",
  username: "bench",
  isAdmin: false,
  credential: { kind: "legacy", scope: "read_write" },
};

export function GET() {
  return Response.json(profile);
}
