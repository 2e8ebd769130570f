import { READ_TOOLS } from "./read-tools";
import { CORE_TOOLS, type Tool } from "./tools";

/** Every tool /mcp lists: contracts/mcp.md's, then each contract's own module. */
export const TOOLS: Tool[] = [...CORE_TOOLS, ...READ_TOOLS];
