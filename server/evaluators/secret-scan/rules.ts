/**
 * Secret rules in the spirit of gitleaks. `keywords` (lower case) are a cheap prefilter: a rule's
 * regex only runs over text that contains one of them. `group` is the capture holding the secret
 * (0 = whole match). Rules with `minEntropy` drop low-entropy matches (placeholders, examples).
 */
export interface SecretRule {
  id: string;
  description: string;
  keywords: string[];
  regex: RegExp;
  group?: number;
  minEntropy?: number;
}

const rule = (r: SecretRule) => r;

export const SECRET_RULES: SecretRule[] = [
  rule({
    id: "svc-token",
    description: "svc-forge API or agent token",
    keywords: ["svc_"],
    regex: /\bsvc_(?:user|agent|oauth)_[A-Za-z0-9_-]{20,}/g,
  }),
  rule({
    id: "private-key",
    description: "Private key",
    keywords: ["private key"],
    regex: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g,
  }),
  rule({
    id: "aws-access-key-id",
    description: "AWS access key id",
    keywords: ["akia", "asia", "abia", "acca"],
    regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g,
  }),
  rule({
    id: "aws-secret-access-key",
    description: "AWS secret access key",
    keywords: ["aws"],
    regex: /aws[\w.-]{0,20}?(?:secret|access)[\w.-]{0,20}?['"]?\s*[:=]\s*['"]?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
    minEntropy: 3.5,
  }),
  rule({
    id: "gcp-api-key",
    description: "Google Cloud API key",
    keywords: ["aiza"],
    regex: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  }),
  rule({
    id: "azure-storage-key",
    description: "Azure storage account key",
    keywords: ["accountkey"],
    regex: /AccountKey=([A-Za-z0-9+/]{86}==)/g,
    group: 1,
  }),
  rule({
    id: "github-token",
    description: "GitHub token",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    regex: /\bgh[pousr]_[0-9A-Za-z]{36}\b/g,
  }),
  rule({
    id: "github-fine-grained-token",
    description: "GitHub fine-grained token",
    keywords: ["github_pat_"],
    regex: /\bgithub_pat_[0-9A-Za-z_]{82}\b/g,
  }),
  rule({
    id: "gitlab-token",
    description: "GitLab personal access token",
    keywords: ["glpat-"],
    regex: /\bglpat-[0-9A-Za-z_-]{20}\b/g,
  }),
  rule({ id: "slack-token", description: "Slack token", keywords: ["xox"], regex: /\bxox[baprs]-[0-9A-Za-z-]{10,}/g }),
  rule({
    id: "slack-webhook",
    description: "Slack incoming webhook URL",
    keywords: ["hooks.slack.com"],
    regex: /hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/]{20,}/g,
  }),
  rule({
    id: "stripe-key",
    description: "Stripe secret key",
    keywords: ["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
    regex: /\b[rs]k_(?:live|test)_[0-9A-Za-z]{24,}\b/g,
  }),
  rule({
    id: "openai-key",
    description: "OpenAI API key",
    keywords: ["t3blbkfj"],
    regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}/g,
  }),
  rule({
    id: "anthropic-key",
    description: "Anthropic API key",
    keywords: ["sk-ant-"],
    regex: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/g,
  }),
  rule({ id: "npm-token", description: "npm access token", keywords: ["npm_"], regex: /\bnpm_[A-Za-z0-9]{36}\b/g }),
  rule({
    id: "pypi-token",
    description: "PyPI upload token",
    keywords: ["pypi-ageichlwas5vcmc"],
    regex: /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g,
  }),
  rule({
    id: "sendgrid-key",
    description: "SendGrid API key",
    keywords: ["sg."],
    regex: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g,
  }),
  rule({ id: "twilio-key", description: "Twilio API key", keywords: ["sk"], regex: /\bSK[0-9a-f]{32}\b/g }),
  rule({
    id: "jwt",
    description: "JSON Web Token",
    keywords: ["eyj"],
    regex: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  }),
  rule({
    id: "url-credentials",
    description: "Password in a URL",
    keywords: ["://"],
    regex: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/'"]{1,100}:([^\s:@/'"]{8,200})@[a-z0-9.-]/gi,
    group: 1,
    minEntropy: 3,
  }),
  rule({
    id: "generic-secret",
    description: "High-entropy secret assignment",
    keywords: [
      "secret",
      "token",
      "passw",
      "pwd",
      "api_key",
      "apikey",
      "api-key",
      "access_key",
      "accesskey",
      "auth",
      "credential",
      "private_key",
    ],
    regex:
      /(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth|credentials?|private[_-]?key)[\w.-]{0,20}?['"]?\s*(?::=|=>|[:=])\s*['"`]?([A-Za-z0-9+/=_.~!@#$%^&*-]{16,200})/gi,
    group: 1,
    minEntropy: 3.7,
  }),
];
