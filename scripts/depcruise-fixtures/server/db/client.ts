export const client = null;
