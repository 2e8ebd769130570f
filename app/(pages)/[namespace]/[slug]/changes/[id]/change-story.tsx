import { CommitTable } from "../../../../_components/commit-table";
import { Markdown } from "../../../../_components/markdown";

interface Commit {
  sha: string;
  message: string;
  author: { name: string; date: string };
}

/** A commit message's body: what follows the subject line and the blank line after it. */
export const messageBody = (message: string) => message.split("\n").slice(1).join("\n").trim();

/**
 * The change's description (its tip commit's message after the subject, as Markdown: a change has
 * no description field, and its title is that subject) and its commits, oldest first.
 */
export function ChangeStory({ base, commits }: { base: string; commits: Commit[] | null }) {
  const tip = commits?.at(-1);
  const body = tip ? messageBody(tip.message) : "";
  return (
    <>
      <section aria-labelledby="description">
        <h2 id="description">Description</h2>
        {body ? <Markdown source={body} context={{ base }} /> : <p className="muted">No description.</p>}
      </section>
      <section aria-labelledby="commits">
        <h2 id="commits">
          Commits <span className="muted">({commits?.length ?? 0})</span>
        </h2>
        {commits === null ? (
          <p className="muted">The commits cannot be read.</p>
        ) : (
          <CommitTable base={base} commits={commits} />
        )}
      </section>
    </>
  );
}
