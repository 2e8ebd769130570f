import { parseArgs } from "node:util";
import { z } from "zod";
import { db } from "@/server/db";
import { invalid, notFound } from "@/server/errors";
import { createApiToken, createUser, publicUser, usernameSchema } from "@/server/auth";
import { TOKEN_EXPIRY_DAYS_MAX, TOKEN_EXPIRY_DAYS_MIN } from "@/server/limits";
import { rekeySecrets } from "@/server/secrets";

export const SVC_USAGE = `usage: npm run svc -- <command>
  user:create <username> [--admin]      create a user; prints {user, token} like POST /api/admin/users
  oauth:grant <username> [--name N] [--scope read|read_write] [--expires-in-days N]
                                        mint an MCP/CLI OAuth grant; prints {grant, token}
  secrets:rekey                         re-encrypt every deploy secret under DEPLOY_SECRET_KEY (after a rotation,
                                        with the old key as DEPLOY_SECRET_KEY_PREVIOUS); prints {rekeyed, unreadable}`;

async function userCreate(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { admin: { type: "boolean", default: false } },
  });
  if (positionals.length !== 1) throw invalid(SVC_USAGE);
  const username = usernameSchema().parse(positionals[0]);
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const { user, token } = await createUser(username, tx);
    if (values.admin) await tx.user.update({ where: { id: user.id }, data: { isAdmin: true } });
    return { user: publicUser(user), token };
  });
}

async function oauthGrant(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string", default: "cli" },
      scope: { type: "string", default: "read" },
      "expires-in-days": { type: "string" },
    },
  });
  if (positionals.length !== 1) throw invalid(SVC_USAGE);
  const input = z
    .object({
      name: z.string().trim().min(1).max(100),
      scope: z.enum(["read", "read_write"]),
      expiresInDays: z.coerce.number().int().min(TOKEN_EXPIRY_DAYS_MIN).max(TOKEN_EXPIRY_DAYS_MAX).optional(),
    })
    .parse({ name: values.name, scope: values.scope, expiresInDays: values["expires-in-days"] });
  const user = await (await db()).user.findUnique({ where: { username: positionals[0] } });
  if (!user || user.deletingAt) throw notFound(`No user ${positionals[0]}`);
  const { token, plaintext } = await createApiToken(user.id, "oauth", input);
  return { grant: token, token: plaintext };
}

const COMMANDS: Record<string, (args: string[]) => Promise<unknown>> = {
  "user:create": userCreate,
  "oauth:grant": oauthGrant,
  "secrets:rekey": async (args) => {
    if (args.length !== 0) throw invalid(SVC_USAGE);
    return rekeySecrets();
  },
};

/** Runs one operator command of scripts/svc.ts against the configured database; returns its JSON. */
export async function runSvcCommand(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) throw invalid(SVC_USAGE);
  return run(rest);
}
