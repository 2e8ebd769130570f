import { streamGit, type GitStream } from "@/server/git";

interface Started {
  git: GitStream;
  chunks: AsyncIterator<Buffer, undefined>;
}

async function start(args: string[], gitdir: string): Promise<Started> {
  const git = await streamGit(args, { gitdir });
  return { git, chunks: git.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer, undefined> };
}

const view = (chunk: Buffer) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/** `held` chunks, then the rest of git's stdout, as a web stream with backpressure: git blocks while the client is slow. */
function readable(args: string[], run: () => Promise<Started>, held: Buffer[] = []): ReadableStream<Uint8Array> {
  let started: Promise<Started> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = held.shift();
      if (next) return controller.enqueue(view(next));
      const { git, chunks } = await (started ??= run());
      const { value, done } = await chunks.next();
      if (!done) return controller.enqueue(view(value));
      const { exitCode, stderr } = await git.exit;
      if (exitCode !== 0) controller.error(new Error(`git ${args[0]} failed (${exitCode}): ${stderr.trim()}`));
      else controller.close();
    },
    cancel: async () => (await started?.catch(() => null))?.git.kill(),
  });
}

/** git's stdout as a web stream; git starts when the first chunk is pulled and is killed on cancel. */
export const gitReadable = (args: string[], gitdir: string): ReadableStream<Uint8Array> =>
  readable(args, () => start(args, gitdir));

/**
 * Starts git and reads ahead its first `size` bytes (fewer when it writes fewer): `head` to decide
 * on, `body` the whole output as a web stream (`cancel()` it to stop git without reading on).
 */
export async function peekGitOutput(
  args: string[],
  gitdir: string,
  size: number,
): Promise<{ head: Buffer; body: ReadableStream<Uint8Array> }> {
  const run = await start(args, gitdir);
  const held: Buffer[] = [];
  let bytes = 0;
  try {
    while (bytes < size) {
      const { value, done } = await run.chunks.next();
      if (done) break;
      held.push(value);
      bytes += value.length;
    }
  } catch (error) {
    run.git.kill();
    throw error;
  }
  return { head: Buffer.concat(held).subarray(0, size), body: readable(args, async () => run, held) };
}
