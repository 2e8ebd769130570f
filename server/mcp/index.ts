// The area's front door: other areas import from here, never from inside the area.
export { handleMcpRequest, protectedResourceMetadataUrl } from "./endpoint";
export { TOOLS } from "./registry";
