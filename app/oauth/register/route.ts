import { corsPreflight, handleRegistration } from "@/server/oauth";

export const dynamic = "force-dynamic";

export const POST = handleRegistration;
export const OPTIONS = corsPreflight;
