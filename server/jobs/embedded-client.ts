import type { ClientOptions } from "inngest";
import { storeEvents } from "./event-store";
import { embeddedSigningKey, inngestConfigured, wakeLocalExecutors } from "./mode";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * The client's fetch in embedded mode. The SDK only calls out to send events (`POST /e/<key>`):
 * they are stored in the database before send() resolves, then the local executors are woken.
 * No other Inngest API exists here.
 */
async function embeddedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if ((init?.method ?? "GET") !== "POST" || !url.pathname.startsWith("/e/")) {
    return json(501, { status: 501, error: `no Inngest API in embedded mode (${url.pathname})` });
  }
  let payloads: unknown;
  try {
    payloads = JSON.parse(typeof init?.body === "string" ? init.body : "[]");
  } catch {
    return json(400, { status: 400, error: "events must be JSON" });
  }
  const ids = await storeEvents(Array.isArray(payloads) ? payloads : [payloads]);
  wakeLocalExecutors();
  return json(200, { ids, status: 200 });
}

/**
 * Client options for the mode in effect. Embedded: "cloud" mode (so every request to the serve
 * handler must carry a valid signature) with a per-process signing key and the in-process fetch.
 * With Inngest configured, the SDK reads INNGEST_* from the environment itself.
 */
export function embeddedClientOptions(): Partial<ClientOptions> {
  if (inngestConfigured()) return {};
  return { isDev: false, signingKey: embeddedSigningKey(), eventKey: "embedded", fetch: embeddedFetch };
}
