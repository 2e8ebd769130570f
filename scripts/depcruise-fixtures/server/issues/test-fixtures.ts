export const anIssue = null;
