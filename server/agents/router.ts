import { z } from "zod";
import { authedProcedure, router, userProcedure } from "@/server/trpc";
import { publicUserOutput } from "@/server/auth";
import { pathSegment, text, namedSchema } from "@/server/http";
import { createAgent, deleteAgent, getAgent, listAgents } from "./service";

const agentSchema = namedSchema("Agent", () =>
  z.object({
    id: z.string(),
    name: z.string(),
    model: z.string().nullable(),
    owner: publicUserOutput(),
    tokenPrefix: z.string(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
  }),
);

export const agentsRouter = router({
  list: authedProcedure
    .meta({
      openapi: { method: "GET", path: "/agents", tags: ["agents"], summary: "The caller's agents; tokens omitted" },
    })
    .input(z.object({}))
    .output(z.object({ agents: z.array(agentSchema()) }))
    .query(async ({ ctx }) => ({ agents: await listAgents(ctx.identity) })),

  create: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/agents",
        tags: ["agents"],
        summary: "Register an agent; its token is returned once",
      },
      successStatus: 201,
    })
    .input(
      z.object({
        name: text().trim().min(1).max(100).default("agent"),
        model: text().trim().min(1).max(200).optional(),
      }),
    )
    .output(z.object({ agent: agentSchema(), token: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const created = await createAgent(ctx.identity, input);
      ctx.response.headers["Cache-Control"] = "no-store";
      return created;
    }),

  get: authedProcedure
    .meta({
      openapi: { method: "GET", path: "/agents/{id}", tags: ["agents"], summary: "One agent; token omitted" },
      etag: true,
    })
    .input(z.object({ id: pathSegment() }))
    .output(z.object({ agent: agentSchema() }))
    .query(async ({ ctx, input }) => ({ agent: await getAgent(ctx.identity, input.id) })),

  delete: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/agents/{id}",
        tags: ["agents"],
        summary: "Delete an agent, revoking its token (owner only)",
      },
      errors: { 403: [] },
    })
    .input(z.object({ id: pathSegment() }))
    .output(z.object({ agent: agentSchema().extend({ deleted: z.literal(true) }) }))
    .mutation(async ({ ctx, input }) => ({ agent: await deleteAgent(ctx.identity, input.id) })),
});
