// The area's front door: other areas import from here, never from inside the area.
export { runSvcCommand } from "./cli";
export { avatarResponse } from "./avatar";
