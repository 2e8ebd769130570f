// The area's front door: other areas import from here, never from inside the area.
export { publishAfterCommit, publishPendingEvents } from "./publish";
export { SUBSCRIBABLE_EVENT_KINDS, recordEvent, trackRecordedEvents } from "./record";
