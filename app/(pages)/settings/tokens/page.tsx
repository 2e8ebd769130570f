import { requireUser } from "../../_lib/session";
import { TOKEN_EXPIRY_DAYS_MAX, TOKEN_EXPIRY_DAYS_MIN } from "@/server/limits";
import { Flash } from "../../_components/flash";
import { SecretOnceForm } from "../../_components/secret-once-form";
import { readSecretFlash } from "../../_lib/secret-flash";
import { revokeToken } from "./actions";
import { TableHead } from "../../_components/table-head";
import { RelativeTime } from "../../_components/relative-time";

export const metadata = { title: "API tokens" };

export default async function TokensPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { api, identity } = await requireUser();
  const query = await searchParams;
  const [{ tokens }, flash] = await Promise.all([api.users.listTokens({}), readSecretFlash(identity)]);
  return (
    <>
      <h1>API tokens</h1>
      <Flash query={query} />
      <section aria-labelledby="new-token">
        <h2 id="new-token">New token</h2>
        <SecretOnceForm action="/settings/tokens/create" submit="Create token" flash={flash}>
          <div>
            <label htmlFor="token-name">Name</label>
            <input id="token-name" name="name" required maxLength={100} />
          </div>
          <div>
            <label htmlFor="token-scope">Scope</label>
            <select id="token-scope" name="scope" defaultValue="read">
              <option value="read">read</option>
              <option value="read_write">read and write</option>
            </select>
          </div>
          <div>
            <label htmlFor="token-days">Expires in days (optional)</label>
            <input
              id="token-days"
              name="expiresInDays"
              type="number"
              min={TOKEN_EXPIRY_DAYS_MIN}
              max={TOKEN_EXPIRY_DAYS_MAX}
            />
          </div>
        </SecretOnceForm>
      </section>
      <section aria-labelledby="your-tokens">
        <h2 id="your-tokens">Your tokens</h2>
        {tokens.length === 0 ? (
          <p>No tokens.</p>
        ) : (
          <div className="scroll">
            <table aria-label="Tokens">
              <TableHead columns={["Name", "Prefix", "Scope", "Status", "Last used", "Action"]} />
              <tbody>
                {tokens.map((token) => (
                  <tr key={token.id}>
                    <td>{token.name}</td>
                    <td>
                      <code>{token.prefix}</code>
                    </td>
                    <td>{token.scope}</td>
                    <td>{token.status}</td>
                    <td>
                      <RelativeTime iso={token.lastUsedAt} />
                    </td>
                    <td>
                      {token.status === "active" && token.kind === "token" && (
                        <form action={revokeToken}>
                          <input type="hidden" name="id" value={token.id} />
                          <button type="submit" className="danger" aria-label={`Revoke ${token.name}`}>
                            Revoke
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
