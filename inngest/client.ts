import { Inngest } from "inngest";

/** The one Inngest client. Event names are `svc/<area>.<what>`; the embedded executor (issue 3) drives it when no Inngest server is configured. */
export const inngest = new Inngest({ id: "svc-forge" });
