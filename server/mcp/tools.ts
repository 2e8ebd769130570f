import { z } from "zod";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { appRouter, type AppRouter } from "@/server/api";
import { DomainError, invalid } from "@/server/errors";
import { booleanish } from "@/server/http";
import type { ApiCaller } from "./caller";
import { QUEUE_TOOL_SPECS } from "./queue-tools";
import { changeResourceUri } from "./resources";

type Args = Record<string, unknown>;
type RouterInputs = inferRouterInputs<AppRouter>;
type RouterOutputs = inferRouterOutputs<AppRouter>;
type Result = Record<string, unknown>;

/**
 * One MCP tool. Most tools are one tRPC procedure: the tool's arguments are that procedure's input
 * schema with its path parameters named as docs/contracts.md#mcp names them (`project` = `@ns/slug`,
 * `change` = a change id, `workspace` = a workspace name), and the procedure runs through a
 * server-side caller, so authorization, validation and output are the REST route's own.
 */
export interface Tool {
  name: string;
  description: string;
  /** Listed to read-scoped credentials; the others need read_write. */
  readOnly: boolean;
  /** Overwrites or moves something that cannot simply be added back (a merge, an issue edit). */
  destructive: boolean;
  input: () => z.ZodObject;
  run: (caller: ApiCaller, args: Args) => Promise<Result>;
  /** The short text beside structuredContent. */
  summarize: (result: Result) => string;
  /** The resource the result is about (a resource_link beside the text): a change one can subscribe to. */
  resource?: (result: Result) => string;
}

/** "area.procedure" names of the root router, e.g. "changes.get". */
/* eslint-disable @typescript-eslint/no-redundant-type-constituents -- tRPC's router record carries a string index beside the names */
type ProcedureName = {
  [A in keyof RouterInputs & string]: `${A}.${keyof RouterInputs[A] & string}`;
}[keyof RouterInputs & string];
/* eslint-enable @typescript-eslint/no-redundant-type-constituents */

/** What the procedure `N` answers. */
type OutputOf<N extends ProcedureName> = N extends `${infer A}.${infer P}`
  ? A extends keyof RouterOutputs
    ? P extends keyof RouterOutputs[A]
      ? RouterOutputs[A][P]
      : never
    : never
  : never;

/** Which of a procedure's input fields a tool names differently, and how the tool's value becomes the field's. */
type Rename = Partial<Record<"project" | "change" | "workspace", true>>;

/** The zod object a procedure validates its input with. */
function procedureInput(name: ProcedureName): z.ZodObject {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { inputs: unknown[] } }>;
  const procedure = procedures[name];
  return procedure._def.inputs[0] as z.ZodObject;
}

const projectArg = () =>
  z
    .string()
    .regex(/^@[^/@]+\/[^/]+$/, "project must be @namespace/slug")
    .describe("The project, as @namespace/slug");
const changeArg = () =>
  z
    .string()
    .min(1)
    .max(200)
    .describe("The change: its id, or @namespace/slug!number (e.g. @alice/demo!12; #12 is taken too)");

/** A change named by its project and number (`@alice/demo!12`, or `#12`) is read for its id; an id is taken as it is. */
async function changeIdOf(caller: ApiCaller, change: unknown): Promise<unknown> {
  const match = typeof change === "string" ? /^(@[^/@]+\/[^/#!]+)[!#](\d{1,10})$/.exec(change) : null;
  if (!match) return change;
  const found = await caller.changes.getByNumber({ ...projectParams(match[1]), number: Number(match[2]) });
  return found.change.id;
}
const workspaceArg = () => z.string().min(1).describe("The workspace name");

/** The tool's argument schema: the procedure's input, path params renamed per `rename`. */
function toolInput(name: ProcedureName, rename: Rename, extra: z.ZodRawShape = {}): z.ZodObject {
  const omit: Record<string, true> = {};
  const add: Record<string, z.ZodType> = {};
  if (rename.project) {
    Object.assign(omit, { namespace: true, slug: true });
    add.project = projectArg();
  }
  if (rename.change) {
    omit.id = true;
    add.change = changeArg();
  }
  if (rename.workspace) {
    omit.name = true;
    add.workspace = workspaceArg();
  }
  return procedureInput(name)
    .omit(omit)
    .extend({ ...add, ...extra });
}

/**
 * `@ns/slug` as the procedure's path params. They are percent-encoded because path params arrive
 * encoded on REST and the procedure decodes them (pathSegment()): the procedure sees what the
 * agent wrote.
 */
export function projectParams(project: unknown): { namespace: string; slug: string } {
  const match = typeof project === "string" ? /^(@[^/@]+)\/([^/]+)$/.exec(project) : null;
  if (!match) throw invalid("Invalid input: project: must be @namespace/slug", "VALIDATION_ERROR");
  return { namespace: encodeURIComponent(match[1]), slug: encodeURIComponent(match[2]) };
}

/** The procedure's input from the tool's arguments (the reverse of toolInput's renames). */
async function procedureArgs(caller: ApiCaller, args: Args, rename: Rename): Promise<Args> {
  const out: Args = { ...args };
  if (rename.project) {
    delete out.project;
    Object.assign(out, projectParams(args.project));
  }
  if (rename.change) {
    delete out.change;
    out.id = await changeIdOf(caller, args.change);
  }
  if (rename.workspace) {
    delete out.workspace;
    out.name = typeof args.workspace === "string" ? encodeURIComponent(args.workspace) : args.workspace;
  }
  return out;
}

/** The caller's function for a procedure, e.g. "changes.get". */
export function procedureOf(caller: ApiCaller, name: ProcedureName): (input: Args) => Promise<Result> {
  return name.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
    input: Args,
  ) => Promise<Result>;
}

interface ProcedureTool<N extends ProcedureName> {
  description: string;
  readOnly?: boolean;
  destructive?: boolean;
  rename?: Rename;
  /** Extra fields of the listed schema where the procedure reads them outside its input (merge's query). */
  extra?: () => z.ZodRawShape;
  summarize: (result: OutputOf<N>) => string;
}

export function procedureTool<N extends ProcedureName>(name: string, procedure: N, spec: ProcedureTool<N>): Tool {
  const rename = spec.rename ?? {};
  return {
    name,
    description: spec.description,
    readOnly: spec.readOnly ?? false,
    destructive: spec.destructive ?? false,
    input: () => toolInput(procedure, rename, spec.extra?.()),
    run: async (caller, args) => procedureOf(caller, procedure)(await procedureArgs(caller, args, rename)),
    summarize: (result) => spec.summarize(result as OutputOf<N>),
  };
}

export const count = (items: unknown[], noun: string, plural = `${noun}s`) =>
  `${items.length} ${items.length === 1 ? noun : plural}`;
const project = { project: true } as const;
const change = { change: true } as const;

/** A workspace the caller may already have made: created, or reused when the name is taken. */
async function workspaceFor(caller: ApiCaller, projectRef: Args, name: string | undefined): Promise<string> {
  try {
    const created = await caller.workspaces.create({ ...projectRef, name } as never);
    return created.workspace;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (name !== undefined && cause instanceof DomainError && cause.code === "CONFLICT") return name;
    throw error;
  }
}

/** Commits a file map to a workspace of a project given as `@ns/slug` (the REST route takes the project's id). */
async function commitFiles(caller: ApiCaller, args: Args): Promise<Result> {
  const projectRef = projectParams(args.project);
  const { id } = await caller.projects.get(projectRef);
  const name = typeof args.workspace === "string" ? encodeURIComponent(args.workspace) : args.workspace;
  return caller.workspaces.commit({ name, projectId: id, message: args.message, files: args.files } as never);
}

const commitInput = () =>
  procedureInput("workspaces.commit")
    .omit({ name: true, projectId: true })
    .extend({ project: projectArg(), workspace: workspaceArg() });

const submitInput = () => commitInput().extend({ workspace: workspaceArg().optional() });

/** The whole contribution in one call: a workspace, one commit, the change and its evaluation. */
async function submitChange(caller: ApiCaller, args: Args): Promise<Result> {
  const projectRef = projectParams(args.project);
  // Checked before anything is made, so a bad file map leaves no workspace behind.
  submitInput().parse(args);
  const workspace = await workspaceFor(caller, projectRef, args.workspace as string | undefined);
  await commitFiles(caller, { ...args, workspace });
  return caller.changes.create({ ...projectRef, workspace });
}

const verdictOf = (answer: Result) => {
  const result = answer as { change: { id: string; status: string }; evalRuns: Array<{ findings: unknown[] }> };
  const findings = result.evalRuns.reduce((sum, run) => sum + run.findings.length, 0);
  return `Change ${result.change.id} is ${result.change.status} (${count(result.evalRuns, "eval run")}, ${count(new Array(findings), "finding")})`;
};

/** The tools of docs/contracts.md#mcp (server/mcp/registry.ts adds the other contracts' modules). */
export const CORE_TOOLS: Tool[] = [
  procedureTool("list_projects", "projects.list", {
    description: "Projects you can read.",
    readOnly: true,
    summarize: (r) => count(r.projects, "project"),
  }),
  procedureTool("get_project", "projects.get", {
    description: "One project: default branch, visibility, remote.",
    readOnly: true,
    rename: project,
    summarize: (r) => `${r.path} (${r.visibility}, default branch ${r.defaultBranch})`,
  }),
  procedureTool("list_files", "repository.files", {
    description: "Every file path at a branch (default: the default branch).",
    readOnly: true,
    rename: project,
    summarize: (r) => `${count(r.files, "file")} at ${r.ref} (${r.commit})`,
  }),
  procedureTool("read_file", "repository.content", {
    description: "One file's text at a branch; binary and too large files come without a value.",
    readOnly: true,
    rename: project,
    summarize: (r) =>
      r.kind === "content"
        ? `${r.path} at ${r.ref}: ${String(r.value).length} characters`
        : `${r.path} at ${r.ref}: ${r.kind}`,
  }),
  procedureTool("get_log", "repository.log", {
    description: "Commit log of a branch, newest first (depth commits).",
    readOnly: true,
    rename: project,
    summarize: (r) => `${count(r.log, "commit")} on ${r.ref}`,
  }),
  procedureTool("list_branches", "repository.branches", {
    description: "The project's branches.",
    readOnly: true,
    rename: project,
    summarize: (r) => `${count(r.branches, "branch", "branches")} (default ${r.defaultBranch})`,
  }),
  procedureTool("create_workspace", "workspaces.create", {
    description: "Fork the project into a workspace to commit to (project write access).",
    rename: { ...project, workspace: true },
    summarize: (r) => `Workspace ${r.workspace} of ${r.path}`,
  }),
  {
    name: "commit_files",
    description: "Write a file map (path to contents; null deletes) as one commit on a workspace.",
    readOnly: false,
    destructive: false,
    input: commitInput,
    run: commitFiles,
    summarize: (r) =>
      `Committed ${count(new Array(r.files as number), "file")} to ${r.workspace as string}: ${r.commit as string}`,
  },
  procedureTool("create_change", "changes.create", {
    description: "Propose a workspace as a change; it is evaluated at once and the verdict returned.",
    rename: project,
    summarize: verdictOf,
  }),
  procedureTool("get_change", "changes.get", {
    description:
      "A change with its latest eval runs (status queued, running, passed, failed, error or cancelled; findings) and costs.",
    readOnly: true,
    rename: change,
    summarize: (r) =>
      `Change ${r.change.id} is ${r.change.status}${r.queue ? `, queued at position ${r.queue.position}` : ""}; runs: ${r.evalRuns.map((run) => `${run.evaluator} ${run.status}`).join(", ")}`,
  }),
  ...QUEUE_TOOL_SPECS.map((tool) =>
    procedureTool(tool.name, tool.procedure, tool.spec as ProcedureTool<ProcedureName>),
  ),
  {
    name: "get_evaluation_log",
    description: "An evaluation run's log (setup and command output); tail: its last N lines.",
    readOnly: true,
    destructive: false,
    input: () =>
      z.object({
        changeId: changeArg(),
        runId: z.string().min(1).max(100).describe("The eval run id (from get_change)"),
        tail: z.number().int().min(0).max(100_000).optional(),
      }),
    run: async (caller, args) =>
      caller.changes.evaluationLog({
        id: (await changeIdOf(caller, args.changeId)) as string,
        runId: args.runId as string,
        tail: args.tail,
      }),
    summarize: (r) => `Run ${r.runId as string} is ${r.status as string} (${r.logBytes as number} bytes of log)`,
  },
  procedureTool("list_changes", "changes.list", {
    description: "A project's changes, newest first.",
    readOnly: true,
    rename: project,
    summarize: (r) => count(r.changes, "change"),
  }),
  procedureTool("comment_on_change", "comments.create", {
    description: "Comment on a change, optionally anchored to a file and line.",
    rename: change,
    summarize: (r) => `Comment ${r.comment.id} on change ${r.comment.changeId}`,
  }),
  procedureTool("review_change", "reviews.submit", {
    description: "Submit a review verdict (people with write access only; agents are refused).",
    rename: change,
    summarize: (r) => `Review ${r.review.verdict}; change is ${r.changeStatus}`,
  }),
  procedureTool("merge_change", "changes.merge", {
    description: "Merge a change into the default branch (people only; gates apply).",
    destructive: true,
    rename: change,
    extra: () => ({
      force: booleanish().optional().describe("Bypass evaluation and approval gates where the policy allows force"),
      strategy: z.enum(["merge", "squash"]).optional(),
    }),
    summarize: (r) => `Merged ${r.changeId} as ${r.commit}`,
  }),
  procedureTool("list_issues", "issues.list", {
    description: "A project's issues, newest first; filter by status, label, assignee or text.",
    readOnly: true,
    rename: project,
    summarize: (r) => count(r.issues, "issue"),
  }),
  procedureTool("get_issue", "issues.get", {
    description: "One issue by number.",
    readOnly: true,
    rename: project,
    summarize: (r) => `#${r.issue.number} ${r.issue.title} (${r.issue.status})`,
  }),
  procedureTool("create_issue", "issues.create", {
    description: "Open an issue (read access is enough).",
    rename: project,
    summarize: (r) => `Opened #${r.issue.number}`,
  }),
  procedureTool("update_issue", "issues.patch", {
    description: "Edit an issue's fields (people with write access; labels replace the set).",
    destructive: true,
    rename: project,
    summarize: (r) => `#${r.issue.number} ${r.issue.title} (${r.issue.status})`,
  }),
  procedureTool("comment_on_issue", "issues.createComment", {
    description: "Comment on an issue (read access is enough).",
    rename: project,
    summarize: (r) => `Comment ${r.comment.id} on #${r.comment.issueNumber}`,
  }),
  procedureTool("list_deployments", "deployments.list", {
    description: "A project's deployments, newest first (filters: name, status).",
    readOnly: true,
    rename: project,
    summarize: (r) => count(r.deployments, "deployment"),
  }),
  {
    name: "submit_change",
    description:
      "One call for a whole contribution: makes a workspace (or reuses the named one), commits the file map, opens the change and returns its evaluation with findings.",
    readOnly: false,
    destructive: false,
    input: submitInput,
    run: submitChange,
    summarize: verdictOf,
    resource: (r) => changeResourceUri((r.change as { id: string }).id),
  },
];
