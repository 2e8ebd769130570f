import { Inngest } from "inngest";
import { embeddedClientOptions } from "./embedded-client";

/**
 * The one Inngest client. Event names are `svc/<area>.<what>`. Without Inngest configuration the
 * embedded executor (server/jobs) drives the functions and send() stores events in the database.
 */
export const inngest = new Inngest({ id: "svc-forge", ...embeddedClientOptions() });
