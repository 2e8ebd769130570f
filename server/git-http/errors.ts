/** A refusal on the git surface: plain text, so git shows it, with the headers git reacts to. */
export class GitHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "GitHttpError";
  }
}
