import { corsPreflight, handleRevocation } from "@/server/oauth";

export const dynamic = "force-dynamic";

export const POST = handleRevocation;
export const OPTIONS = corsPreflight;
