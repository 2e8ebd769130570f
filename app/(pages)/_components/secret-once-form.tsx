import type { SecretFlash } from "../_lib/secret-flash";

/**
 * A create form whose answer carries a secret (token plaintext, webhook signing secret). It posts
 * to a route that redirects back here (Post/Redirect/Get), and the secret arrives as a one-time
 * flash: shown on the page the redirect lands on, gone on reload.
 */
export function SecretOnceForm({
  action,
  submit,
  flash,
  children,
}: {
  action: string;
  submit: string;
  flash: SecretFlash | null;
  children: React.ReactNode;
}) {
  return (
    <>
      {flash && (
        <div className="notice" role="status">
          <p>
            <strong>{flash.label}</strong> created. Copy its secret now: it is not shown again.
          </p>
          <p className="token" data-testid="new-secret">
            {flash.secret}
          </p>
        </div>
      )}
      <form method="post" action={action}>
        <div className="row">
          {children}
          <div>
            <button type="submit" className="primary">
              {submit}
            </button>
          </div>
        </div>
      </form>
    </>
  );
}
