import { config } from "@/server/config";

/**
 * Who a commit's author is, when this forge wrote the commit: its signatures use
 * `<username>@users.noreply.<host>` for a user and `agent-<id>@agents.noreply.<host>` for an agent
 * (server/projects/authorship.ts). Other addresses (imported history, GitHub's own noreply) name
 * no one here: their author is shown as git recorded it.
 */
export function commitAuthorActor(email: string): { username: string } | { agentActor: string } | null {
  const at = email.lastIndexOf("@");
  if (at < 1) return null;
  const local = email.slice(0, at);
  const host = new URL(config.baseUrl).hostname;
  const domain = email.slice(at + 1);
  if (domain === `users.noreply.${host}` && /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/.test(local)) return { username: local };
  const agent = domain === `agents.noreply.${host}` ? /^agent-([0-9a-f-]{36})$/.exec(local) : null;
  return agent ? { agentActor: `agent:${agent[1]}` } : null;
}
