import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import { noteWait } from "@/server/log";

/** The driver calls that wait on the database: a statement, a transaction's start (a pooled connection and its BEGIN), its end. */
const WAITS = new Set<PropertyKey>(["queryRaw", "executeRaw", "startTransaction", "commit", "rollback"]);

/** `target` with each of its WAITS calls timed into the request being answered (noteWait); a transaction it starts too. */
function timed<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      if (!WAITS.has(property)) return value.bind(object) as unknown;
      return async (...args: unknown[]) => {
        const asked = performance.now();
        try {
          const answer: unknown = await value.apply(object, args);
          return property === "startTransaction" ? timed(answer as Transaction) : answer;
        } finally {
          noteWait("db", performance.now() - asked);
        }
      };
    },
  });
}

/**
 * Counts what a request waits on PostgreSQL in its log line (`dbMs`, `dbCalls`), as the embedded
 * database's thread does for its own calls (pglite-thread.ts): each statement from its call to its
 * answer, a wait for a pooled connection included.
 */
export function timedAdapter(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => timed<SqlDriverAdapter>(await factory.connect()),
  };
}
