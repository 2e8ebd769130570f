export const start = () => null;
