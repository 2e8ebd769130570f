import { functions } from "@/inngest/functions";
import { serveFunctions } from "@/server/jobs";

export const dynamic = "force-dynamic";

/** The Inngest serve endpoint: Inngest calls it, or the embedded executor in-process (signed either way). */
export const { GET, POST, PUT } = serveFunctions(functions);
