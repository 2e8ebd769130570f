import { handleDevLogin } from "@/server/auth/dev-login";

export const dynamic = "force-dynamic";

export const POST = handleDevLogin;
