import { syncStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = async (req: Request, context: { params: Promise<{ namespace: string; slug: string }> }) => syncStreamResponse(req, await context.params);
