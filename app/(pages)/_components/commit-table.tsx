import { CommitAuthor } from "./commit-author";
import { CommitLink } from "./commit-link";
import { RelativeTime } from "./relative-time";
import { TableHead } from "./table-head";

interface CommitRow {
  sha: string;
  message: string;
  author: { name: string; email?: string; date: string };
}

/** A list of commits: id (linking to the commit page), subject, author, relative date. */
export function CommitTable({ base, commits }: { base: string; commits: CommitRow[] }) {
  return (
    <div className="scroll">
      <table aria-label="Commits">
        <TableHead columns={["Commit", "Message", "Author", "Date"]} />
        <tbody>
          {commits.map((commit) => (
            <tr key={commit.sha}>
              <td>
                <CommitLink base={base} sha={commit.sha} />
              </td>
              <td>{commit.message.split("\n")[0]}</td>
              <td>
                <CommitAuthor author={commit.author} />
              </td>
              <td>
                <RelativeTime iso={commit.author.date} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
