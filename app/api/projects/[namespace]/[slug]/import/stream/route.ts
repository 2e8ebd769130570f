import { importStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = async (req: Request, context: { params: Promise<{ namespace: string; slug: string }> }) => importStreamResponse(req, await context.params);
