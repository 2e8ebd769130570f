import { run } from "@/bench/run";
export const used = run;
