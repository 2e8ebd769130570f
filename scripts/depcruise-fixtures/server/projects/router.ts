import { projects } from "./service";
export const router = projects;
