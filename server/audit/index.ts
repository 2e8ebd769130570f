// The area's front door: other areas import from here, never from inside the area.
export { AUDIT_ACTIONS, auditActor, writeAudit } from "./log";
export type { AuditAction, AuditEntry } from "./log";
export { currentCallerAddress, withCallerAddress } from "./caller";
export { listAudit, verifyAudit } from "./query";
