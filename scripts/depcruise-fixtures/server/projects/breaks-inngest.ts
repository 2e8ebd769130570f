import { job } from "@/inngest/job";
export const used = job;
