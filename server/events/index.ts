// The area's front door: other areas import from here, never from inside the area.
export { DOMAIN_EVENT, publishAfterCommit, publishPendingEvents } from "./publish";
export { eventsAbout, eventsByActor, findDomainEvent } from "./read";
export type { EventRow } from "./read";
export {
  SUBSCRIBABLE_EVENT_KINDS,
  recordEvent,
  recordEvents,
  recordEventsAlongside,
  recordEventsWith,
  trackRecordedEvents,
  whenRequestEnds,
} from "./record";
export type { Alongside, EventInput } from "./record";
export { onProjectInterest } from "./interests";
export {
  CHANGE_TRANSITIONS,
  FINAL_TRANSITIONS,
  latestTransition,
  latestTransitionSql,
  transitionFromJson,
  transitionPosition,
  transitionsFromJson,
  transitionsOf,
  transitionsSql,
  watchChange,
} from "./change-watch";
export type { Transition } from "./change-watch";
export { eventSentence, sentenceText, subjectText } from "./sentence";
export type { EventSubject, SentencePart } from "./sentence";
export { eventSubjectOutput, eventSubjects } from "./subjects";
