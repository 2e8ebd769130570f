import { db } from "@/server/db";
export const accessRouter = db;
