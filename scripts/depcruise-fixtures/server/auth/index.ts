export * from "./session";
