import { avatarResponse, traced } from "@/server/api";
import { errorResponse, headFromGet } from "@/server/http";

export const dynamic = "force-dynamic";

/** GET /avatars/<username>: the person's identicon (SVG). */
export const GET = traced("/avatars/{name}", async (req) => {
  try {
    return await avatarResponse(new URL(req.url).pathname.split("/")[2] ?? "");
  } catch (error) {
    return errorResponse(error);
  }
});
export const HEAD = headFromGet(GET);
