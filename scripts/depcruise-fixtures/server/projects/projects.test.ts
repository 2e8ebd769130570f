import { anIssue } from "@/server/issues/test-fixtures";
import { client } from "@/server/db/client";
export const used = [anIssue, client];
