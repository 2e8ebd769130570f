// Exact, idempotent edits of an installed dependency's file, for the postinstall patches
// (scripts/patch-prisma-runtime.mjs, scripts/patch-next-router.mjs). Each edit is [original, patched,
// occurrences]. A file that already holds every patched text is left alone; otherwise each original
// must occur exactly as often as expected, or the install fails naming the file: an upgrade that
// changed the code makes whoever upgrades re-check the patch.
import fs from "node:fs";

const occurrences = (text, needle) => text.split(needle).length - 1;

/** Applies `edits` to `file` unless already applied; `label` names the patch in messages, `dependency` what changed when one fails. */
export function applyExactEdits(file, edits, { label, dependency }) {
  let text = fs.readFileSync(file, "utf8");
  if (edits.every(([, patched, count]) => occurrences(text, patched) === count)) return;
  for (const [original, patched, count] of edits) {
    const found = occurrences(text, original);
    if (found !== count)
      throw new Error(
        `${label}: expected ${count} of ${JSON.stringify(original)} in ${file}, found ${found}; ${dependency} changed, re-check the patch`,
      );
    text = text.replaceAll(original, patched);
  }
  fs.writeFileSync(file, text);
  console.log(`${label}: patched ${file}`);
}
