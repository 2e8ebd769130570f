import { assertSameAuthSecret } from "@/server/auth";
import { assertSameSecretKey } from "@/server/keys";
import { assertDeploySecretsReadable } from "@/server/secrets";

/**
 * Instances sharing a database must share their secrets, or they fail later and one by one (a
 * webhook secret sealed by one does not open on another). Checked at start, naming the variable.
 */
export async function assertInstanceKeysAgree(): Promise<void> {
  await assertSameSecretKey();
  await assertSameAuthSecret();
  await assertDeploySecretsReadable();
}
