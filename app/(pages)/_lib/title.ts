import type { Metadata } from "next";
import { projectAddress, type ProjectRouteParams } from "./project";

/** A project page's `generateMetadata`: "<what> · @ns/slug" (the layout adds the site's name), from the route alone. */
export function projectTitle<R extends ProjectRouteParams>(what?: (route: R) => string) {
  return async ({ params }: { params: Promise<R> }): Promise<Metadata> => {
    const route = await params;
    const { namespace, slug } = projectAddress(route);
    return { title: what ? `${what(route)} · ${namespace}/${slug}` : `${namespace}/${slug}` };
  };
}

/** A route segment as written in the address bar. */
export const segment = (value: string) => decodeURIComponent(value);
