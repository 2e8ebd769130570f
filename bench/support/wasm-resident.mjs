import fs from "node:fs";

/**
 * What of a process's WebAssembly memories (the embedded database's linear memory) is resident, in
 * bytes: V8 maps each as its accessible part followed right after by an inaccessible guard region of
 * 4 GB or more, and nothing else in the process looks like that.
 */
export function wasmResidentOf(pid) {
  const mappings = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (head) mappings.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3], rss: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) mappings.at(-1).rss = Number(rss[1]) * 1024;
  }
  const guarded = (m, i) =>
    m.perms.startsWith("rw") &&
    mappings[i + 1]?.start === m.end &&
    mappings[i + 1].perms.startsWith("---") &&
    mappings[i + 1].end - mappings[i + 1].start >= 4n * 2n ** 30n;
  return mappings.filter(guarded).reduce((sum, m) => sum + m.rss, 0);
}
