import { handleDevLogin } from "@/server/auth";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/api/auth/dev-login", handleDevLogin);
