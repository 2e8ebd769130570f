// The area's front door: other areas import from here, never from inside the area.
export { instanceSecret } from "./instance-secret";
export { assertSameSecretKey, openWithKey, seal, sealWithKey, unseal } from "./seal";
export { assertSameSecret } from "./check";
