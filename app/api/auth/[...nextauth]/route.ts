import { handleAuthRequest } from "@/server/auth";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/api/auth/{action}", handleAuthRequest);
export const POST = traced("/api/auth/{action}", handleAuthRequest);
