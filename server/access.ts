/** The access levels of the spec, lowest first; the effective level is the highest grant. */
export const ACCESS_LEVELS = ["none", "read", "write", "admin", "owner"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
/** A level some grant gives: every level but none. */
export type GrantedLevel = Exclude<AccessLevel, "none">;

const rank = (level: AccessLevel) => ACCESS_LEVELS.indexOf(level);

export const atLeast = (level: AccessLevel, needed: AccessLevel) => rank(level) >= rank(needed);

export const highest = (levels: AccessLevel[]): AccessLevel => levels.reduce<AccessLevel>((best, level) => (rank(level) > rank(best) ? level : best), "none");
