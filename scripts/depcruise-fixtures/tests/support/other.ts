import { helper } from "./helper";
export const other = () => helper;
