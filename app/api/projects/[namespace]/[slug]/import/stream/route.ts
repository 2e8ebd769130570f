import { importStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = importStreamResponse;
