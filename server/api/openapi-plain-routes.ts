/**
 * Routes served by plain route modules outside the REST catch-all (app/), written here by hand
 * because no procedure generates them. Auth.js's own /api/auth/* routes and git's smart HTTP are
 * not part of the interface.
 */
export function plainRoutes(): Record<string, Record<string, unknown>> {
  const error = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
  return {
    "/health": {
      get: {
        operationId: "rootHealth",
        summary: "Liveness: answers while the process runs",
        tags: ["health"],
        security: [{}],
        responses: {
          "200": {
            description: "Alive",
            content: { "application/json": { schema: { type: "object", required: ["status", "service"], properties: { status: { type: "string" }, service: { type: "string" } } } } },
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
        responses: { "200": { description: "The OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
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
          content: { "application/json": { schema: { type: "object", required: ["username"], properties: { username: { type: "string" } } } } },
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
                  properties: { user: { type: "object", required: ["id", "username"], properties: { id: { type: "string" }, username: { type: "string" } } } },
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
