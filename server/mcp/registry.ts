import { READ_TOOLS } from "./read-tools";
import { CORE_TOOLS, type Tool } from "./tools";

/** Every tool /mcp lists: those of docs/contracts.md#mcp, then each contract's own module. */
export const TOOLS: Tool[] = [...CORE_TOOLS, ...READ_TOOLS];
