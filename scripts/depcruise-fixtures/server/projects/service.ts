import { db } from "@/server/db";
export const projects = db;
