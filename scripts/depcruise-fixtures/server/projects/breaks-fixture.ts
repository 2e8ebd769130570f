import { anIssue } from "@/server/issues/test-fixtures";
export const used = anIssue;
