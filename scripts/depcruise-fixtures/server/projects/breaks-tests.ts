import { helper } from "@/tests/support/helper";
export const used = helper;
