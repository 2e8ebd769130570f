import { config } from "@/server/config";
import { assertSameSecret, instanceSecret } from "@/server/keys";

/** AUTH_SECRET, or one generated once into DATA_DIR/auth-secret. */
export const authSecret = (): string => instanceSecret("auth-secret", config.authSecret);

/** Refuses to go on when AUTH_SECRET is not the one the other instances on this database sign with. */
export const assertSameAuthSecret = () => assertSameSecret("AUTH_SECRET", authSecret());
