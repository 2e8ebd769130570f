"use client";

import { useActionState } from "react";

export interface SecretOnceState {
  /** The secret just created (token plaintext, webhook signing secret): shown this once, stored nowhere. */
  secret?: string;
  label?: string;
  error?: string;
}

/**
 * A create form whose answer carries a secret: the action's state shows it once under the form.
 * useActionState also works without JavaScript (the server renders the state into the answer).
 */
export function SecretOnceForm({ action, submit, children }: { action: (previous: SecretOnceState, form: FormData) => Promise<SecretOnceState>; submit: string; children: React.ReactNode }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <>
      {state.secret && (
        <div className="notice" role="status">
          <p>
            <strong>{state.label}</strong> created. Copy its secret now: it is not shown again.
          </p>
          <p className="token" data-testid="new-secret">
            {state.secret}
          </p>
        </div>
      )}
      {state.error && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      <form action={formAction}>
        <div className="row">
          {children}
          <div>
            <button type="submit" className="primary" disabled={pending}>
              {submit}
            </button>
          </div>
        </div>
      </form>
    </>
  );
}
