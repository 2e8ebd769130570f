import Link from "next/link";
import { pathUrl } from "../_lib/tree";

/** `slug / dir / sub / name` at a ref: every part but the last links to its directory. */
export function Breadcrumbs({
  base,
  slug,
  gitRef,
  path,
}: {
  base: string;
  slug: string;
  gitRef: string;
  path: string;
}) {
  const parts = path === "" ? [] : path.split("/");
  return (
    <nav aria-label="Breadcrumbs" className="crumbs">
      <ol>
        <li>
          {parts.length === 0 ? (
            <span aria-current="page">{slug}</span>
          ) : (
            <Link href={pathUrl(base, "tree", gitRef, "")}>{slug}</Link>
          )}
        </li>
        {parts.map((name, index) => (
          <li key={index}>
            {index === parts.length - 1 ? (
              <span aria-current="page">{name}</span>
            ) : (
              <Link href={pathUrl(base, "tree", gitRef, parts.slice(0, index + 1).join("/"))}>{name}</Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
