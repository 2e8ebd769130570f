import type { InngestFunction } from "inngest";

/** Every function served at /api/inngest; areas add theirs here. */
export const functions: InngestFunction.Any[] = [];
