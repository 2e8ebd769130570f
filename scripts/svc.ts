// Operator commands: `npm run svc -- <command> ...` (see server/users/cli.ts for the list).
// Uses DATABASE_URL or the embedded database under DATA_DIR. PGlite allows one process per data
// directory: against a running embedded server the commands refuse, naming the process and the
// admin route that does the same through it (server/db/data-dir-lock.ts).
import { validateConfig } from "@/server/config";
import { closeDatabase } from "@/server/db";
import { toHttpError } from "@/server/http";
import { runSvcCommand } from "@/server/users";
import { runBackupCommand } from "@/server/backup";
import { protectDataDir } from "@/server/runtime";

async function main(): Promise<number> {
  try {
    validateConfig();
    protectDataDir();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  try {
    const argv = process.argv.slice(2);
    const result = await (runBackupCommand(argv) ?? runSvcCommand(argv));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const failure = toHttpError(error);
    process.stderr.write(`${failure.message}\n`);
    return failure.status >= 500 ? 2 : 1;
  } finally {
    await closeDatabase();
  }
}

process.exitCode = await main();
