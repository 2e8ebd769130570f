const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Row ids are uuids; anything else names no row (404), and must not reach a uuid column (500). */
export const isUuid = (value: string) => UUID.test(value);
