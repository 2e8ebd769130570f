// A launcher: a small process of the server's own that starts processes for it (a run's checkout,
// sandbox and tools for the runners; git for the server's requests) and relays what they print, or
// connects a process's stdio to a socket whose other end the server reads (rendezvous.ts). A fork
// copies the page tables of the process that forks: 17.5 ms of CPU per git call from a process at
// 400 MB, against 6.3 ms here (bench/git-spawn), and none of it on the server's thread. Started and
// spoken to by launcher.ts over Node's IPC channel; plain JavaScript because it runs outside the
// server's bundle.
import { spawn } from "node:child_process";
import net from "node:net";

/** Relayed chunks not yet taken by the server past which the processes' output is paused. */
const UNSENT_HIGH = 64;
const UNSENT_LOW = 16;

/** Launch id -> its record (track()). */
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
  const launch = track(id, steps.length);
  try {
    for (const [index, step] of steps.entries()) {
      const last = index === steps.length - 1;
      const stdout = last ? (relayStdout ? "relay" : "ignore") : "pipe";
      const stdin = index > 0 || step.input !== undefined ? "pipe" : "ignore";
      launch.children.push(spawnStep({ launch, step, index, stdio: [stdin, stdout === "ignore" ? "ignore" : "pipe"] }));
      if (stdout === "relay") relay(id, index, "stdout", launch.children[index].stdout);
    }
  } catch (error) {
    failed(launch, error);
    return;
  }
  for (let index = 1; index < launch.children.length; index++) {
    launch.children[index].stdin.on("error", () => undefined); // the reader gone early: its exit code says why
    launch.children[index - 1].stdout.pipe(launch.children[index].stdin);
  }
}

/**
 * Starts one step with its stdout (and its stdin, if asked) on sockets to the server's rendezvous,
 * each named by its token; with `channel`, its fd 3 is relayed to another. The process reads and
 * writes its stdio sockets directly (made blocking for it as its stdio); fd 3 stays a pipe of its
 * own here, relayed, since a socket of this process's is non-blocking and the shell tools a hook
 * runs on fd 3 would fail on it with EAGAIN.
 */
async function startConnected({ id, steps: [step], connect }) {
  const launch = track(id, 1);
  const sockets = [];
  const connectNamed = async (token, { read }) => {
    const socket = await connectTo(connect.path, token);
    sockets.push(socket);
    if (read) await ready(socket);
    return socket;
  };
  try {
    const stdout = await connectNamed(connect.stdout, { read: true });
    const stdin = connect.stdin ? await connectNamed(connect.stdin, { read: false }) : "ignore";
    const channel = connect.channel ? await connectNamed(connect.channel, { read: true }) : null;
    if (launch.killedBy) throw new Error(`killed (${launch.killedBy}) before it started`);
    const child = spawnStep({ launch, step, index: 0, stdio: [stdin, stdout], channel: Boolean(channel) });
    launch.children.push(child);
    for (const socket of [stdout, stdin]) if (socket !== "ignore") socket.destroy(); // the process holds its own copies
    if (channel) {
      const pipe = child.stdio[3];
      for (const end of [pipe, channel]) end.on("error", () => [pipe, channel].forEach((each) => each.destroy()));
      pipe.pipe(channel);
      channel.pipe(pipe);
    }
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    failed(launch, error);
  }
}

/** Resolves once the server answered READY (rendezvous.ts) on a socket it will read, which may also carry what it writes next. */
function ready(socket) {
  return new Promise((resolve, reject) => {
    const take = () => {
      if (socket.read(1) === null) return;
      socket.off("readable", take);
      socket.off("end", ended);
      socket.pause(); // what follows stays here for the pipe to take, or for the process
      resolve();
    };
    const ended = () => reject(new Error("the server closed a socket before taking it"));
    socket.on("readable", take);
    socket.once("end", ended);
  });
}

/** A connection to the server's rendezvous named by `token`, not yet read from (the process reads it). */
function connectTo(path, token) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path, allowHalfOpen: true });
    socket.pause(); // before it connects: nothing of the server's is read here
    socket.on("error", reject); // kept: once resolved, a later error only ends it (its users listen too)
    socket.once("connect", () =>
      socket.write(Buffer.from(token, "hex"), (error) => (error ? reject(error) : resolve(socket))),
    );
  });
}

/** A launch's record: its processes as they start, and its exit once every step has ended. */
function track(id, steps) {
  const exits = new Array(steps);
  let pending = steps;
  const launch = {
    id,
    steps,
    children: [],
    killedBy: null,
    exited(index, exit) {
      if (exits[index]) return;
      exits[index] = exit;
      if (--pending > 0) return;
      launches.delete(id);
      send({ type: "exit", id, exits });
    },
  };
  launches.set(id, launch);
  return launch;
}

/** A launch that failed before all its steps started (spawn throws some failures, a refused uid change among them). */
function failed(launch, error) {
  kill(launch.id, "SIGKILL");
  const started = launch.children.length;
  for (let index = started; index < launch.steps; index++)
    launch.exited(index, { code: null, signal: null, error: index === started ? error.message : "not started" });
}

function spawnStep({ launch, step, index, stdio, channel = false }) {
  const child = spawn(step.command, step.args, {
    cwd: step.cwd,
    env: step.env ?? process.env,
    ...(step.uid === undefined ? {} : { uid: step.uid, gid: step.gid }),
    detached: index === 0 && step.group === true,
    stdio: [...stdio, "pipe", step.fd3 !== undefined || channel ? "pipe" : "ignore"],
  });
  child.on("error", (error) => launch.exited(index, { code: null, signal: null, error: error.message }));
  child.on("close", (code, signal) => launch.exited(index, { code, signal }));
  if (step.fd3 !== undefined) {
    child.stdio[3].on("error", () => undefined); // gone before it read them: its exit says why
    child.stdio[3].end(step.fd3);
  }
  if (index === 0 && step.input !== undefined) {
    child.stdin.on("error", () => undefined); // gone before it read it: its exit says why
    child.stdin.end(step.input);
  }
  child.leadsGroup = index === 0 && step.group === true;
  relay(launch.id, index, "stderr", child.stderr);
  return child;
}

/** Signals a launch's processes: each one, and the whole group of one that leads its own. */
function kill(id, signal) {
  const launch = launches.get(id);
  if (!launch) return;
  launch.killedBy ??= signal;
  for (const child of launch.children) {
    try {
      if (child.leadsGroup && child.pid) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  }
}

process.on("message", (message) => {
  if (message.type === "start") (message.connect ? startConnected : start)(message);
  else if (message.type === "kill") kill(message.id, message.signal);
});
// The server gone (ended, crashed or done with us): nothing it started may outlive it.
process.on("disconnect", () => {
  for (const id of launches.keys()) kill(id, "SIGKILL");
  process.exit(0);
});
