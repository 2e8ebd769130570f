export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerRuntime } = await import("@/server/runtime/start");
  await startServerRuntime();
}
