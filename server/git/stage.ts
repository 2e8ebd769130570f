import { objectId, writeLoose, type ObjectType, type ParsedObject } from "./loose";
import { keepParsed } from "./parsed-cache";
import { consolidatePacksWhenMany, PACK_BYTES_MAX, writePack, type PackedObject } from "./pack";

/** From this many objects a flush writes one pack; fewer are written loose (git's transfer.unpackLimit). */
const PACK_FROM = 100;

interface StagedObject extends PackedObject {
  parsed: ParsedObject;
}

/**
 * Objects written in memory and read back from there, then written to the store in one go: a chain
 * of merges (a merge-batch, a queue round) reads back every tree and commit it just wrote, and
 * writes hundreds of small objects that land together or not at all. Lives as long as one chain;
 * nothing outside it sees a staged object before `flush` (then the process's parsed cache keeps
 * the trees and commits, with the file that holds them).
 */
export class ObjectStage {
  private readonly staged = new Map<string, StagedObject>();

  get(oid: string): ParsedObject | undefined {
    return this.staged.get(oid)?.parsed;
  }

  add(type: ObjectType, content: Uint8Array, parsed: ParsedObject): string {
    const oid = objectId(type, content);
    if (!this.staged.has(oid)) this.staged.set(oid, { oid, type, content, parsed });
    return oid;
  }

  get pending(): number {
    return this.staged.size;
  }

  /** Writes what is staged into the store of `gitdir`: one pack, or loose objects when few. */
  flush(gitdir: string): void {
    const objects = [...this.staged.values()];
    if (objects.length === 0) return;
    const bytes = objects.reduce((sum, object) => sum + object.content.length, 0);
    const index = objects.length >= PACK_FROM && bytes < PACK_BYTES_MAX / 2 ? writePack(gitdir, objects) : null;
    if (index) void consolidatePacksWhenMany(gitdir);
    for (const object of objects) {
      if (!index) writeLoose(gitdir, object.type, object.content, object.oid);
      keepParsed(object.oid, object.parsed, index ? { packIndex: index } : { looseIn: gitdir });
    }
    this.staged.clear();
  }
}
