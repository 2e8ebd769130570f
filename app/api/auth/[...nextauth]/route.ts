import { handleAuthRequest } from "@/server/auth/next-auth";

export const dynamic = "force-dynamic";

export const GET = handleAuthRequest;
export const POST = handleAuthRequest;
