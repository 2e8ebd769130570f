import { announceInvalidation, onInvalidation } from "@/server/db";
import { dropAllCredentials, dropUserCredentials } from "./credential-cache";

const TOPIC = "credentials";
onInvalidation(TOPIC, { drop: dropUserCredentials, dropAll: dropAllCredentials });

/**
 * Call after any write that revokes or changes a credential or the account. Revocation takes
 * effect at once in this instance and, on PostgreSQL, in every other one (server/db/invalidation);
 * AUTH_CACHE_TTL_SECONDS only bounds what a lost notification could leave behind.
 */
export function forgetUserCredentials(userId: string): void {
  dropUserCredentials(userId);
  void announceInvalidation(TOPIC, userId);
}
