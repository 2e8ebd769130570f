// The area's front door: other areas import from here, never from inside the area.
export { DELETION_REQUESTED_EVENT, markDeletionJobIncomplete, runDeletionJob } from "./service";
