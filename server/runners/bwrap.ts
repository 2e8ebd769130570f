/** Whether bubblewrap is installed and can create its namespaces here. */
export function sandboxAvailable(): { ok: true } | { ok: false; reason: string } {
  return { ok: false, reason: "not implemented" };
}
