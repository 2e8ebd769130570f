import { handleAuthRequest } from "@/server/auth";

export const dynamic = "force-dynamic";

export const GET = handleAuthRequest;
export const POST = handleAuthRequest;
