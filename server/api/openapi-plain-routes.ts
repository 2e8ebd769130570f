/**
 * Routes served by plain route modules outside the REST catch-all (app/), written here by hand
 * because no procedure generates them. Auth.js's own /api/auth/* routes and git's smart HTTP are
 * not part of the interface.
 */
const ADMIN_SECURITY = [{ adminKey: [] }, { bearer: [] }, { session: [] }];

export function plainRoutes(): Record<string, Record<string, unknown>> {
  const error = (description: string) => ({
    description,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  });
  const projectPath = [
    { name: "namespace", in: "path", required: true, schema: { type: "string" } },
    { name: "slug", in: "path", required: true, schema: { type: "string" } },
  ];
  const eventStream = (operationId: string, summary: string) => ({
    get: {
      operationId,
      summary,
      tags: ["imports"],
      security: [{}, { bearer: [] }, { session: [] }],
      parameters: projectPath,
      responses: {
        "200": {
          description: "`data: <JSON>` every 2 seconds",
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        "400": error("Bad request (a path segment with NUL or malformed encoding). Codes: VALIDATION_ERROR"),
        "401": error("Unauthorized"),
        "403": error("Forbidden"),
        "404": error("Not found"),
        "429": error("Too many requests"),
      },
    },
  });
  const readResponses = (ok: Record<string, unknown>) => ({
    "200": ok,
    "304": { description: "Not modified (If-None-Match held the ETag)" },
    "400": error("Bad request. Codes: VALIDATION_ERROR"),
    "401": error("Unauthorized"),
    "404": error("Not found"),
    "409": error("The ref names both a branch and a tag. Codes: AMBIGUOUS_REF"),
    "429": error("Too many requests"),
  });
  const refParam = {
    name: "ref",
    in: "query",
    required: false,
    schema: { type: "string" },
    description: "A branch or a full commit id (default: the default branch)",
  };
  return {
    "/api/projects/{namespace}/{slug}/archive": {
      get: {
        operationId: "projectArchive",
        summary: "The tree at a ref as git archive writes it (prefix <slug>-<12 hex>/), streamed",
        tags: ["code"],
        security: [{}, { bearer: [] }, { session: [] }],
        parameters: [
          ...projectPath,
          refParam,
          {
            name: "format",
            in: "query",
            required: false,
            schema: { type: "string", enum: ["tar.gz", "zip"], default: "tar.gz" },
          },
        ],
        responses: readResponses({
          description: "The archive (Content-Disposition: attachment; ETag from the commit)",
          content: {
            "application/gzip": { schema: { type: "string", format: "binary" } },
            "application/zip": { schema: { type: "string", format: "binary" } },
          },
        }),
      },
    },
    "/api/projects/{namespace}/{slug}/raw": {
      get: {
        operationId: "projectRaw",
        summary:
          "A file's bytes (text/plain for HTML, SVG, XML, JavaScript; CSP sandbox; nosniff; ETag from the blob id)",
        tags: ["code"],
        security: [{}, { bearer: [] }, { session: [] }],
        parameters: [
          ...projectPath,
          { name: "path", in: "query", required: true, schema: { type: "string" } },
          refParam,
        ],
        responses: readResponses({
          description: "The file's bytes",
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        }),
      },
    },
    "/api/projects/{namespace}/{slug}/import/stream": eventStream(
      "importStream",
      "Import progress as server-sent events until the import ends",
    ),
    "/api/projects/{namespace}/{slug}/sync/stream": eventStream(
      "syncStream",
      "Sync status as server-sent events until the sync ends (5 minutes at most)",
    ),
    "/api/changes/{id}/events": {
      get: {
        operationId: "changeEvents",
        summary:
          "A change's transitions as server-sent events: its state first, then one event per transition (the GET /api/changes/{id} JSON), until merged or rejected; Last-Event-ID resumes",
        tags: ["changes"],
        security: [{}, { bearer: [] }, { session: [] }],
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description:
              "`id:`, `event:` (change.state, change.evaluated, ...), `data: <change JSON>`; a comment every 15 s",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          "400": error("Bad request"),
          "401": error("Unauthorized"),
          "404": error("Not found"),
          "429": error("Too many requests"),
        },
      },
    },
    "/api/changes/{id}/evaluations/{runId}/log": {
      get: {
        operationId: "evaluationRunLog",
        summary:
          "An evaluation run's log: setup and command output as text (?tail=N: the last N lines); with Accept: text/event-stream, `log` events (id: the byte offset after the chunk; Last-Event-ID resumes) while it runs, then one `end` {status}",
        tags: ["changes"],
        security: [{}, { bearer: [] }, { session: [] }],
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "runId", in: "path", required: true, schema: { type: "string" } },
          { name: "tail", in: "query", required: false, schema: { type: "integer", minimum: 0, maximum: 100000 } },
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description:
              "The log (text/plain), or its live stream (text/event-stream: `log` events whose data is the chunk as a JSON string, then `end`)",
            content: {
              "text/plain": { schema: { type: "string" } },
              "text/event-stream": { schema: { type: "string" } },
            },
          },
          "400": error("Bad request"),
          "401": error("Unauthorized"),
          "404": error("Not found (the change, or a run of it)"),
          "429": error("Too many requests"),
        },
      },
    },
    "/api/providers/github/webhook": {
      post: {
        operationId: "providerWebhook",
        summary:
          "Inbound hosting-provider webhook (X-Hub-Signature-256; only with GITHUB_WEBHOOK_SECRET): a push to a connected branch queues a sync",
        tags: ["imports"],
        security: [{}],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        responses: {
          "200": {
            description: "ping answered, or a push handled",
            content: { "application/json": { schema: { type: "object" } } },
          },
          "202": { description: "Ignored event", content: { "application/json": { schema: { type: "object" } } } },
          "400": error("Bad request"),
          "401": error("Signature mismatch"),
          "404": error("No GITHUB_WEBHOOK_SECRET configured"),
        },
      },
    },
    "/api/admin/backups/{id}/archive": {
      get: {
        operationId: "adminBackupArchive",
        summary: "The tar archive of a completed backup",
        tags: ["admin"],
        security: ADMIN_SECURITY,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "The archive",
            content: { "application/x-tar": { schema: { type: "string", format: "binary" } } },
          },
          "400": error("Bad request"),
          "401": error("Unauthorized"),
          "403": error("Not an administrator. Codes: ADMIN_REQUIRES_DIRECT_CREDENTIAL"),
          "404": error("Not found"),
          "409": error("Still running. Codes: BACKUP_NOT_READY"),
          "429": error("Too many requests"),
        },
      },
    },
    "/api/admin/restore": {
      post: {
        operationId: "adminRestore",
        summary: "Restore a backup archive into an instance with no projects",
        tags: ["admin"],
        security: ADMIN_SECURITY,
        requestBody: {
          required: true,
          content: { "application/x-tar": { schema: { type: "string", format: "binary" } } },
        },
        responses: {
          "202": { description: "Restore started", content: { "application/json": { schema: { type: "object" } } } },
          "400": error("Not a backup archive. Codes: BACKUP_INVALID"),
          "401": error("Unauthorized"),
          "403": error("Not an administrator. Codes: ADMIN_REQUIRES_DIRECT_CREDENTIAL"),
          "409": error("The instance has projects. Codes: INSTANCE_NOT_EMPTY"),
          "413": error("The archive is over RESTORE_ARCHIVE_BYTES_MAX. Codes: PAYLOAD_TOO_LARGE"),
          "429": error("Too many requests"),
        },
      },
    },
    "/health": {
      get: {
        operationId: "rootHealth",
        summary: "Liveness: answers while the process runs",
        tags: ["health"],
        security: [{}],
        responses: {
          "200": {
            description: "Alive",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["status", "service"],
                  properties: { status: { type: "string" }, service: { type: "string" } },
                },
              },
            },
          },
        },
      },
    },
    "/api/openapi.json": {
      get: {
        operationId: "openApiDocument",
        summary: "This document",
        tags: ["meta"],
        security: [{}],
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document",
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      },
    },
    "/api/auth/dev-login": {
      post: {
        operationId: "devLogin",
        summary: "Sign in as a user without a password (only with DEV_LOGIN=1); sets the svc_session cookie",
        tags: ["auth"],
        security: [{}],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", required: ["username"], properties: { username: { type: "string" } } },
            },
          },
        },
        responses: {
          "200": {
            description: "Signed in; `Set-Cookie: svc_session=…`",
            headers: { "Set-Cookie": { schema: { type: "string" } } },
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["user"],
                  properties: {
                    user: {
                      type: "object",
                      required: ["id", "username"],
                      properties: { id: { type: "string" }, username: { type: "string" } },
                    },
                  },
                },
              },
            },
          },
          "400": error("Bad request"),
          "403": error("Cross-site request (CSRF)"),
          "404": error("DEV_LOGIN is not enabled"),
          "409": error("The account is being deleted. Codes: TARGET_DELETING"),
          "413": error("Payload too large. Codes: PAYLOAD_TOO_LARGE"),
          "429": error("Too many requests"),
        },
      },
    },
  };
}
