// The runners' processes are started on this thread (by spawner.ts, which states the protocol):
// Node starts a child on the calling thread, and the fork of a server of a few hundred MB blocks
// that thread ~10 ms a child; fifty runs starting together held the server's requests ~0.5 s.
// Plain JavaScript: it is started by its path, so it must run as it is under Node, vitest and tsx.
import { spawn } from "node:child_process";
import { parentPort } from "node:worker_threads";

/** The processes of each started group, by the group's id. */
const groups = new Map();

const post = (message) => parentPort.postMessage(message);

function start({ id, processes }) {
  const children = [];
  let open = processes.length;
  const ended = () => --open === 0 && groups.delete(id);
  processes.forEach((spec, index) => {
    const previous = children[index - 1];
    const stdin = previous ? "pipe" : "ignore";
    const stdio = [stdin, spec.stdout, spec.stderr, ...(spec.fd3 ? ["pipe"] : [])];
    let finished = false;
    // A child that cannot start reports an error and may still close: the first word is its end.
    const finish = (message) => {
      if (finished) return;
      finished = true;
      post({ id, index, ...message });
      ended();
    };
    let child;
    try {
      child = spawn(spec.file, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio,
        ...(spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.gid }),
      });
    } catch (error) {
      finish({ error: String(error?.message ?? error), code: error?.code });
      return;
    }
    children.push(child);
    if (previous?.stdout && child.stdin) {
      previous.stdout.pipe(child.stdin);
      child.stdin.on("error", () => undefined); // gone early: its exit code says why
    }
    // The last process's stdout comes back; a piped one's goes to the next process only.
    if (child.stdout && index === processes.length - 1)
      child.stdout.on("data", (chunk) => post({ id, index, stream: "stdout", chunk }));
    child.stderr?.on("data", (chunk) => post({ id, index, stream: "stderr", chunk }));
    if (spec.fd3) {
      const options = child.stdio[3];
      options.on("error", () => undefined); // gone before it read them: its exit says why
      options.end(Buffer.from(spec.fd3));
    }
    child.on("error", (error) => finish({ error: error.message, code: error.code }));
    child.on("close", (code, signal) => finish({ code, signal }));
  });
  groups.set(id, children);
}

parentPort.on("message", (message) => {
  if (message.op === "start") start(message);
  else if (message.op === "kill")
    for (const child of groups.get(message.id) ?? []) {
      try {
        child.kill(message.signal);
      } catch {
        // already gone
      }
    }
});
