// The area's front door: other areas import from here, never from inside the area.
export { REDACTED, redactValues } from "./redact";
export { rekeySecrets } from "./rekey";
export { allSecretValues, assertDeploySecretsReadable, secretValues, unreadableSecretKeyIds } from "./service";
