export const db = () => null;
