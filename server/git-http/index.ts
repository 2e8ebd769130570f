// The area's front door: other areas import from here, never from inside the area.
export { handleGitHttp } from "./handler";
export { gitRoute } from "./target";
