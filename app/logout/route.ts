import { handleLogout } from "@/server/auth";

export const dynamic = "force-dynamic";

export const POST = handleLogout;
