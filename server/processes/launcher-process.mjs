// A launcher: a small process of the server's own that starts processes for it (a run's checkout,
// sandbox and tools for the runners; git for the server's requests) and relays what they print. A
// fork copies the page tables of the process that forks: 17.5 ms of CPU per git call from a process
// at 400 MB, against 6.3 ms here (bench/git-spawn), and none of it on the server's thread. Started and spoken to by launcher.ts over Node's IPC channel; plain JavaScript
// because it runs outside the server's bundle.
import { spawn } from "node:child_process";

/** Relayed chunks not yet taken by the server past which the processes' output is paused. */
const UNSENT_HIGH = 64;
const UNSENT_LOW = 16;

/** Launch id -> its processes. */
const launches = new Map();
/** Output streams paused until the server takes the chunks before them. */
const paused = new Set();
let unsent = 0;

function send(message) {
  unsent++;
  process.send(message, () => {
    unsent--;
    if (unsent > UNSENT_LOW) return;
    for (const stream of paused) stream.resume();
    paused.clear();
  });
}

function relay(id, step, stream, readable) {
  readable.on("data", (data) => {
    send({ type: "output", id, step, stream, data });
    if (unsent > UNSENT_HIGH) {
      readable.pause();
      paused.add(readable);
    }
  });
}

/** Starts a launch's steps, each one's stdout into the next one's stdin; the last one's is relayed if asked. */
function start({ id, steps, relayStdout }) {
  const exits = new Array(steps.length);
  let pending = steps.length;
  const exited = (index, exit) => {
    if (exits[index]) return;
    exits[index] = exit;
    if (--pending > 0) return;
    launches.delete(id);
    send({ type: "exit", id, exits });
  };
  const children = [];
  launches.set(id, children);
  try {
    for (const [index, step] of steps.entries()) {
      const last = index === steps.length - 1;
      children.push(spawnStep({ id, step, index, stdout: last ? (relayStdout ? "relay" : "ignore") : "pipe", exited }));
    }
  } catch (error) {
    // spawn throws (rather than emits) some failures, a refused uid change among them.
    kill(id, "SIGKILL");
    for (let index = children.length; index < steps.length; index++)
      exited(index, { code: null, signal: null, error: index === children.length ? error.message : "not started" });
    return;
  }
  for (let index = 1; index < children.length; index++) {
    children[index].stdin.on("error", () => undefined); // the reader gone early: its exit code says why
    children[index - 1].stdout.pipe(children[index].stdin);
  }
}

function spawnStep({ id, step, index, stdout, exited }) {
  const child = spawn(step.command, step.args, {
    cwd: step.cwd,
    env: step.env ?? process.env,
    ...(step.uid === undefined ? {} : { uid: step.uid, gid: step.gid }),
    detached: index === 0 && step.group === true,
    stdio: [
      index > 0 || step.input !== undefined ? "pipe" : "ignore",
      stdout === "ignore" ? "ignore" : "pipe",
      "pipe",
      step.fd3 === undefined ? "ignore" : "pipe",
    ],
  });
  child.on("error", (error) => exited(index, { code: null, signal: null, error: error.message }));
  child.on("close", (code, signal) => exited(index, { code, signal }));
  if (step.fd3 !== undefined) {
    child.stdio[3].on("error", () => undefined); // gone before it read them: its exit says why
    child.stdio[3].end(step.fd3);
  }
  if (index === 0 && step.input !== undefined) {
    child.stdin.on("error", () => undefined); // gone before it read it: its exit says why
    child.stdin.end(step.input);
  }
  child.leadsGroup = index === 0 && step.group === true;
  relay(id, index, "stderr", child.stderr);
  if (stdout === "relay") relay(id, index, "stdout", child.stdout);
  return child;
}

/** Signals a launch's processes: each one, and the whole group of one that leads its own. */
function kill(id, signal) {
  for (const child of launches.get(id) ?? []) {
    try {
      if (child.leadsGroup && child.pid) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  }
}

process.on("message", (message) => {
  if (message.type === "start") start(message);
  else if (message.type === "kill") kill(message.id, message.signal);
});
// The server gone (ended, crashed or done with us): nothing it started may outlive it.
process.on("disconnect", () => {
  for (const id of launches.keys()) kill(id, "SIGKILL");
  process.exit(0);
});
