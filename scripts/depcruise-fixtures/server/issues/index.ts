export const issues = null;
