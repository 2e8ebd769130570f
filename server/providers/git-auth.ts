import { config } from "@/server/config";

/**
 * The environment a git transfer with the provider runs in: the token as an `http.extraHeader`
 * through GIT_CONFIG_COUNT (never on a command line, in a URL or in a stored config), and curl's
 * low-speed guard so a hung server ends as "Operation too slow" (TIMEOUT) instead of hanging.
 */
export function providerGitEnv(): Record<string, string> {
  const settings: Array<[string, string]> = [
    ["http.lowSpeedLimit", "1"],
    ["http.lowSpeedTime", String(config.providerTimeoutSeconds)],
    // An interrupted fetch must not leave a half-written shallow file or refs behind.
    ["fetch.writeCommitGraph", "false"],
  ];
  const token = config.githubToken;
  if (token)
    settings.push([
      "http.extraHeader",
      `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
    ]);
  const env: Record<string, string> = {
    GIT_CONFIG_COUNT: String(settings.length),
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
  };
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}
