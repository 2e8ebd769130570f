import { handleRateLimitedPage, traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/too-many-requests", handleRateLimitedPage);
