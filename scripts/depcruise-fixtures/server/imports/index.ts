export * from "./provider-webhook-endpoint";
