import { AsyncLocalStorage } from "node:async_hooks";

/** What code deep in a request learns for its log line: who asked, and which MCP tools ran. */
export interface TraceNotes {
  identity?: string;
  tools?: string[];
}

const holder = globalThis as unknown as { __svcTraceNotes?: AsyncLocalStorage<TraceNotes> };
const storage = (holder.__svcTraceNotes ??= new AsyncLocalStorage<TraceNotes>());

/** Runs `work` with `notes` as the request's notes, filled in by `noteIdentity`/`noteTool` below. */
export const withTraceNotes = <T>(notes: TraceNotes, work: () => T): T => storage.run(notes, work);

/** The identity kind the admission gate settled on (outside a traced request: nothing). */
export function noteIdentity(kind: string): void {
  const notes = storage.getStore();
  if (notes) notes.identity = kind;
}

/** An MCP tool this request called (a JSON-RPC batch can call several). */
export function noteTool(name: string): void {
  const notes = storage.getStore();
  if (notes) (notes.tools ??= []).push(name);
}
