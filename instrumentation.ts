export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerRuntime } = await import("@/server/runtime/start");
  try {
    await startServerRuntime();
  } catch (error) {
    // Next.js would keep serving with a broken runtime; a failed start must stop the process.
    console.error(`[svc] start-up failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
