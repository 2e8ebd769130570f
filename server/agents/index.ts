// The area's front door: other areas import from here, never from inside the area.
export { agentModelSql, agentNames } from "./service";
