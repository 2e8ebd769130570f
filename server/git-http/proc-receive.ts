import fs from "node:fs";
import path from "node:path";
import type { Duplex } from "node:stream";
import { config } from "@/server/config";
import { GC_LEAVES_REFS_CONFIG } from "@/server/git";
import { FLUSH_PKT, PktLineReader, pktLine } from "./pkt-line";
import { log } from "@/server/log";

/**
 * Pushes go through receive-pack's proc-receive hook (`receive.procReceiveRefs=refs`): receive-pack
 * takes the pack and moves the objects into place, then hands every ref command to the hook
 * instead of updating refs itself, and reports the hook's per-ref `ok` / `ng <reason>` to the
 * client. Our hook is a relay: it copies that conversation to and from fd 3, one end of a socket
 * pair whose other end is in the server (fd 3 of receive-pack, inherited by its hooks). So every
 * ref update of a push is decided and applied by the server, through the git layer's
 * compare-and-swap under the repository's lock, like any API write.
 */
const HOOK_SCRIPT = `#!/bin/sh
# svc-forge: relays receive-pack's proc-receive protocol to the server over fd 3.
cat <&3 &
cat >&3
wait
`;

const installed = new Set<string>();

/** The hooks directory (`core.hooksPath`) holding our proc-receive relay; written once per process. */
export function hooksDir(): string {
  const dir = path.join(config.dataDir, "git-hooks");
  if (installed.has(dir)) return dir;
  const file = path.join(dir, "proc-receive");
  fs.mkdirSync(dir, { recursive: true });
  let current: string | null = null;
  try {
    current = fs.readFileSync(file, "utf8");
  } catch {
    // not written yet
  }
  if (current !== HOOK_SCRIPT) {
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, HOOK_SCRIPT, { mode: 0o755 });
    fs.renameSync(temp, file);
  }
  installed.add(dir);
  return dir;
}

/** receive-pack settings that route every ref update of a push through the server. */
export const receivePackConfig = (): Record<string, string> => ({
  "receive.procReceiveRefs": "refs",
  "core.hooksPath": hooksDir(),
  // Every ref is decided one by one; an all-or-nothing push is not offered.
  "receive.advertiseAtomic": "false",
  // fsck refuses trees with names git would not check out (`.git` spellings, `..`); the protect
  // flags make it apply the NTFS and HFS spellings too, whatever the server's file system.
  "receive.fsckObjects": "true",
  "core.protectNTFS": "true",
  "core.protectHFS": "true",
  // The gc receive-pack starts after a push (receive.autogc) runs outside the project's ref lock.
  ...GC_LEAVES_REFS_CONFIG,
});

const ZERO_OID = /^0{40}$/;

/** One ref command of a push; null stands for git's zero id (create: old null; delete: new null). */
export interface RefCommand {
  ref: string;
  oldOid: string | null;
  newOid: string | null;
}

export type RefResult = { ref: string; ok: true } | { ref: string; ok: false; reason: string };

export function parseCommand(line: string): RefCommand {
  const match = /^([0-9a-f]{40}) ([0-9a-f]{40}) (\S+)$/.exec(line);
  if (!match) throw new Error(`Bad proc-receive command ${JSON.stringify(line)}`);
  const [, oldOid, newOid, ref] = match;
  return { ref, oldOid: ZERO_OID.test(oldOid) ? null : oldOid, newOid: ZERO_OID.test(newOid) ? null : newOid };
}

/** A reason is one line of the report; git shows it in parentheses after the ref. */
const oneLine = (reason: string) =>
  reason
    .replace(/[\r\n]+/g, " ")
    .trim()
    .slice(0, 1000);

/**
 * Serves the proc-receive conversation on `channel`: version negotiation, the ref commands, then
 * `decide`'s verdicts. Returns without answering when receive-pack never ran the hook (for
 * example, when the pack was refused). Whatever `decide` throws becomes an `ng` for every ref, so
 * receive-pack is never left waiting.
 */
export async function serveProcReceive(
  channel: Duplex,
  decide: (commands: RefCommand[]) => Promise<RefResult[]>,
): Promise<void> {
  const reader = new PktLineReader(channel);
  if ((await reader.section()) === null) return;
  channel.write(Buffer.concat([pktLine("version=1\0"), FLUSH_PKT]));
  const lines = await reader.section();
  if (lines === null) return;
  const commands = lines.map(parseCommand);
  let results: RefResult[];
  try {
    results = await decide(commands);
  } catch (error) {
    log().error({ err: error }, "git-http: push failed");
    results = commands.map((command) => ({ ref: command.ref, ok: false, reason: "internal error" }));
  }
  const packets = results.map((result) =>
    pktLine(result.ok ? `ok ${result.ref}` : `ng ${result.ref} ${oneLine(result.reason)}`),
  );
  channel.end(Buffer.concat([...packets, FLUSH_PKT]));
}
