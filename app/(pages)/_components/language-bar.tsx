import { refusalOf, type PageCaller } from "@/server/api";

type Languages = Awaited<ReturnType<PageCaller["repository"]["languages"]>>["languages"];

/**
 * Starts reading the languages of the tree at a branch (beside the page's other reads): none when
 * the ref is no branch (a commit id in `?ref=`).
 */
export async function readLanguages(
  api: PageCaller,
  project: { namespace: string; slug: string },
  branch: string,
): Promise<Languages> {
  try {
    return (await api.repository.languages({ ...project, ref: branch })).languages;
  } catch (error) {
    if (refusalOf(error).status >= 500) throw error;
    return [];
  }
}

/**
 * A thin bar of the languages' shares (SVG: the pages' CSP allows no inline style) and a legend
 * with each percentage as text. Nothing when no code is counted.
 */
export async function LanguageBar({ languages }: { languages: Promise<Languages> }) {
  const shares = await languages;
  if (shares.length === 0) return null;
  const starts = shares.map((_, i) => shares.slice(0, i).reduce((sum, language) => sum + language.percent, 0));
  return (
    <section aria-label="Languages" className="languages">
      <svg className="language-bar" aria-hidden="true" width="100%" height="8" preserveAspectRatio="none">
        {shares.map((language, i) => (
          <rect
            key={language.name}
            x={`${starts[i]}%`}
            width={`${language.percent}%`}
            height="8"
            fill={language.color}
          />
        ))}
      </svg>
      <ul className="language-legend">
        {shares.map((language) => (
          <li key={language.name}>
            <svg aria-hidden="true" width="10" height="10" viewBox="0 0 10 10">
              <circle cx="5" cy="5" r="5" fill={language.color} />
            </svg>{" "}
            {language.name} <span className="muted">{language.percent}%</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
