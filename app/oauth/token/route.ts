import { corsPreflight, handleToken } from "@/server/oauth";

export const dynamic = "force-dynamic";

export const POST = handleToken;
export const OPTIONS = corsPreflight;
