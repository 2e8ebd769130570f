// The area's front door: other areas import from here, never from inside the area.
export { requireOrg } from "./membership";
export type { OrgAccess } from "./membership";
export { handOverSoleOwnership } from "./service";
export { requireTeam } from "./teams";
export { grantTeamProject, orgGrantsOn, orgReachOf, revokeTeamProject, teamProjectGrants } from "./grants";
export { sharedOrgsOf } from "./shared";
