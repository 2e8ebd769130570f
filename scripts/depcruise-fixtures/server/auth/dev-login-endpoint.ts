import { db } from "@/server/db";
export const handleDevLogin = db;
