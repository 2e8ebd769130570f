import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { deflateObject, writeFileAtomically, type ObjectType } from "./loose";
import { GC_LEAVES_REFS_CONFIG } from "./gc";
import { runGit } from "./spawn";
import { log } from "@/server/log";

export interface PackedObject {
  oid: string;
  type: ObjectType;
  content: Uint8Array;
}

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };

/** An entry's header: the type and the size, 4 bits then 7 per byte, low bits first. */
function entryHeader(type: ObjectType, size: number): Buffer {
  const bytes = [(TYPE_CODES[type] << 4) | (size & 0x0f)];
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    bytes[bytes.length - 1] |= 0x80;
    bytes.push(rest & 0x7f);
  }
  return Buffer.from(bytes);
}

const uint32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};

/** Version-2 index: fan-out, sorted ids, each entry's CRC-32 and offset, the pack's checksum. */
function packIndex(entries: Array<{ oid: Buffer; crc: number; offset: number }>, packChecksum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(256 * 4);
  for (let byte = 0, at = 0; byte < 256; byte++) {
    while (at < sorted.length && sorted[at].oid[0] <= byte) at++;
    fanout.writeUInt32BE(at, byte * 4);
  }
  const body = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63]),
    uint32(2),
    fanout,
    ...sorted.map((e) => e.oid),
    ...sorted.map((e) => uint32(e.crc)),
    ...sorted.map((e) => uint32(e.offset)),
    packChecksum,
  ]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** Packs beyond this size would need the index's 8-byte offsets: such objects are written loose. */
export const PACK_BYTES_MAX = 0x7fffffff;

/**
 * Writes `objects` (no duplicates) into the store of `gitdir` as one pack without deltas and its
 * version-2 index, named by the pack's checksum as git names them. The pack is in place before
 * its index, so a reader that finds the index finds the pack. Answers the index's path.
 */
export function writePack(gitdir: string, objects: PackedObject[]): string {
  const parts: Buffer[] = [Buffer.from("PACK"), uint32(2), uint32(objects.length)];
  let offset = 12;
  const entries = objects.map((object) => {
    const entry = Buffer.concat([
      entryHeader(object.type, object.content.length),
      deflateObject(object.type, object.content),
    ]);
    parts.push(entry);
    const indexed = { oid: Buffer.from(object.oid, "hex"), crc: zlib.crc32(entry), offset };
    offset += entry.length;
    return indexed;
  });
  if (offset > PACK_BYTES_MAX) throw new RangeError("Pack too large for 4-byte offsets");
  const checksum = createHash("sha1");
  for (const part of parts) checksum.update(part);
  const packChecksum = checksum.digest();
  const name = path.join(gitdir, "objects", "pack", `pack-${packChecksum.toString("hex")}`);
  writeFileAtomically(`${name}.pack`, Buffer.concat([...parts, packChecksum]), "tmp_pack_");
  writeFileAtomically(`${name}.idx`, packIndex(entries, packChecksum), "tmp_idx_");
  return `${name}.idx`;
}

/** Packs a store holds before git is asked to consolidate them (git's gc.autoPackLimit). */
const AUTO_PACK_LIMIT = 50;
const consolidating = new Set<string>();

/**
 * Past AUTO_PACK_LIMIT packs in the store of `gitdir`, runs `git gc --auto` in the background, as
 * receive-pack does after a push (git then repacks them into one; a project's store never prunes,
 * and gc leaves refs alone: it runs outside the project's ref lock, see gc.ts); settles when gc
 * ended. Every lookup of an object not loose reads each pack's index: their number must stay bounded.
 */
export function consolidatePacksWhenMany(gitdir: string): Promise<void> {
  if (consolidating.has(gitdir)) return Promise.resolve();
  const packs = fs.readdirSync(path.join(gitdir, "objects", "pack")).filter((name) => name.endsWith(".pack")).length;
  if (packs <= AUTO_PACK_LIMIT) return Promise.resolve();
  consolidating.add(gitdir);
  const leaveRefs = Object.entries(GC_LEAVES_REFS_CONFIG).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  // Not detached (git's default for --auto): this process knows when it ended, and starts one at a time.
  return runGit([...leaveRefs, "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"], { gitdir })
    .then(() => undefined)
    .catch((error: Error) => log().warn({ gitdir, err: error.message }, "git: gc --auto failed"))
    .finally(() => consolidating.delete(gitdir));
}
