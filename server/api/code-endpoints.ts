import { z } from "zod";
import { admitRequest, type Identity } from "@/server/auth";
import { changePatch } from "@/server/changes";
import { ARCHIVE_FORMATS, archiveEtag, projectArchive, rawFile } from "@/server/code";
import {
  assertWellFormedUrl,
  errorResponse,
  ifNoneMatchMatches,
  namespaceSegment,
  pathSegment,
  text,
} from "@/server/http";
import { instrumentRequest } from "@/server/metrics";
import { handleRestRequest } from "./rest";

// Reads whose bodies are not JSON (docs/contracts.md#reading-code): an archive streamed from git archive, a raw
// file, and a change's diff as text/x-diff. Plain route handlers behind the same admission gate
// as the REST routes; a project the caller cannot read is a 404 here too.

type ProjectRef = { namespace: string; slug: string };

async function answer(
  req: Request,
  route: string,
  respond: (identity: Identity, url: URL) => Promise<Response>,
): Promise<Response> {
  return instrumentRequest(
    req,
    () => route,
    async () => {
      let headers: Record<string, string> = {};
      try {
        const url = new URL(req.url);
        assertWellFormedUrl(url);
        const admission = await admitRequest(req);
        headers = admission.headers;
        const response = await respond(admission.identity, url);
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        return response;
      } catch (error) {
        return errorResponse(error, headers);
      }
    },
  );
}

/** `{namespace}/{slug}` of `/api/projects/{namespace}/{slug}/<x>`, checked like the REST routes' params. */
function projectRefOf(url: URL): ProjectRef {
  const [namespace = "", slug = ""] = url.pathname.split("/").slice(3, 5);
  return { namespace: namespaceSegment().parse(namespace), slug: pathSegment().parse(slug) };
}

const query = <T extends z.ZodRawShape>(url: URL, shape: T) =>
  z.object(shape).parse(Object.fromEntries(url.searchParams));
const notModified = (etag: string) => new Response(null, { status: 304, headers: { etag } });

/** GET .../archive?ref&format: the tree at a ref as `git archive` writes it, streamed. */
export function handleArchiveRequest(req: Request): Promise<Response> {
  return answer(req, "/api/projects/{namespace}/{slug}/archive", async (identity, url) => {
    const input = query(url, {
      ref: text().min(1).max(1000).optional(),
      format: z.enum(ARCHIVE_FORMATS).default("tar.gz"),
    });
    const archive = await projectArchive(identity, projectRefOf(url), input.ref, input.format);
    const etag = archiveEtag(archive.commit, archive.format);
    if (ifNoneMatchMatches(req, etag)) return notModified(etag);
    const type = archive.format === "zip" ? "application/zip" : "application/gzip";
    return new Response(archive.open(), {
      headers: {
        "content-type": type,
        "content-disposition": `attachment; filename="${archive.name}.${archive.format}"`,
        etag,
        "cache-control": "private, no-cache",
      },
    });
  });
}

/** GET .../raw?path&ref: a file's bytes streamed from git, served so that no browser runs them on our origin. */
export function handleRawRequest(req: Request): Promise<Response> {
  return answer(req, "/api/projects/{namespace}/{slug}/raw", async (identity, url) => {
    const input = query(url, { path: text().min(1).max(4096), ref: text().min(1).max(1000).optional() });
    const file = await rawFile(identity, projectRefOf(url), input.path, input.ref);
    const etag = `"${file.oid}"`;
    const safety = {
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "cache-control": "private, no-cache",
    };
    if (ifNoneMatchMatches(req, etag)) return new Response(null, { status: 304, headers: { etag, ...safety } });
    const { contentType, body } = await file.open();
    return new Response(body, { headers: { "content-type": contentType, etag, ...safety } });
  });
}

const wantsPatch = (req: Request, url: URL) =>
  url.searchParams.get("format") === "patch" || (req.headers.get("accept") ?? "").includes("text/x-diff");

/** GET /api/changes/{id}/diff: JSON pages through REST (changes.diffFiles); text/x-diff is the whole diff, streamed from git. */
export function handleChangeDiffRequest(req: Request): Promise<Response> {
  if (!wantsPatch(req, new URL(req.url))) return handleRestRequest(req);
  return answer(req, "/api/changes/{id}/diff", async (identity, url) => {
    const id = pathSegment().parse(url.pathname.split("/").at(-2) ?? "");
    const patch = await changePatch(identity, id);
    return new Response(patch, {
      headers: {
        "content-type": "text/x-diff; charset=utf-8",
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-cache",
      },
    });
  });
}
