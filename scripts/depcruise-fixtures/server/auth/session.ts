export const session = null;
