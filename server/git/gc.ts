/**
 * Refs are written only under their repository's lock (clearStaleRefLocks counts on it; a new change's
 * pin, whose name no holder writes, is created beside it by the same lock-file protocol), and git's gc
 * runs outside it wherever it starts (our pack writer, receive-pack's receive.autogc, a fetch's
 * maintenance, an operator): in our repositories gc neither packs refs nor expires reflogs (which
 * locks each ref). As `-c` settings, for a gc that may meet a repository made before them.
 */
export const GC_LEAVES_REFS_CONFIG: Readonly<Record<string, string>> = {
  "gc.packRefs": "false",
  "gc.reflogExpire": "never",
  "gc.reflogExpireUnreachable": "never",
};

/** The same settings as lines of a repository's `[gc]` section. */
export const GC_LEAVES_REFS = Object.entries(GC_LEAVES_REFS_CONFIG)
  .map(([key, value]) => `\t${key.slice("gc.".length)} = ${value}\n`)
  .join("");
