import { streamGit } from "@/server/git";

/** git's stdout as a web stream with backpressure: git blocks while the client is slow. */
export function gitReadable(args: string[], gitdir: string): ReadableStream<Uint8Array> {
  let git: ReturnType<typeof streamGit> | null = null;
  let iterator: AsyncIterator<Buffer> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      git ??= streamGit(args, { gitdir });
      iterator ??= git.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const { value, done } = await iterator!.next();
      if (!done) return controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      const { exitCode, stderr } = await git.exit;
      if (exitCode !== 0) controller.error(new Error(`git ${args[0]} failed (${exitCode}): ${stderr.trim()}`));
      else controller.close();
    },
    cancel: () => git?.kill(),
  });
}
