// The area's front door: other areas import from here, never from inside the area.
export { DOMAIN_EVENT, publishAfterCommit, publishPendingEvents } from "./publish";
export { findDomainEvent } from "./read";
export { SUBSCRIBABLE_EVENT_KINDS, recordEvent, trackRecordedEvents } from "./record";
export { onEventRecorded } from "./hooks";
export type { EventHook, RecordedEvent } from "./hooks";
