import { config } from "@/server/config";
import { instanceSecret } from "@/server/keys";

/** AUTH_SECRET, or one generated once into DATA_DIR/auth-secret. */
export const authSecret = (): string => instanceSecret("auth-secret", config.authSecret);
