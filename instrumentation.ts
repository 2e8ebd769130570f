export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerRuntimeOrExit } = await import("@/server/runtime");
  await startServerRuntimeOrExit(async () => (await import("@/inngest/functions")).functions);
}
