// Throughput work (proofs, key builds) yields the CPU to the event loop that answers requests: on
// Linux a thread's nice value is its own, and threads it starts afterwards (the native prover's,
// a worker's helpers) inherit it. Where the CPU is contended, health checks and refusals then
// stay fast; where it is not, the work runs as fast as before.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Nice values: prover workers yield to the event loop, key builds to the provers as well. */
export const NICE_PROVER = 5;
export const NICE_BUILD = 10;

/** Lowers the calling thread's priority to `nice` (never raises it); false where it cannot. */
export function niceThisThread(nice: number): boolean {
  try {
    // "/proc/thread-self" links to "PID/task/TID": the thread's id is what setpriority takes.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return false;
    if (getPriority(tid) < nice) setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

/** Lowers a child process's priority to `nice` (never raises it); false where it cannot. */
export function niceProcess(pid: number | undefined, nice: number): boolean {
  if (pid === undefined) return false;
  try {
    if (getPriority(pid) < nice) setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}

/**
 * Key builds nobody is waiting for (preloads, the first start's shapes, the forester's batch keys)
 * run at the lowest priority: a client's proof on the same cores then loses about a twentieth of
 * them (nice 19 against the prover's 5), where nice 10 left the builds a quarter.
 */
export const NICE_BACKGROUND_BUILD = 19;

/** The processes and threads of process `pid` and of its descendants (Linux /proc; none elsewhere). */
export function processTree(pid: number): { pids: number[]; tids: number[] } {
  const pids: number[] = [];
  const tids: number[] = [];
  const visit = (p: number) => {
    if (pids.includes(p)) return;
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${p}/task`);
    } catch {
      return; // gone, or not Linux
    }
    pids.push(p);
    for (const t of threads) {
      tids.push(Number(t));
      let children = '';
      try {
        children = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        // a thread that ended meanwhile
      }
      for (const c of children.split(' ')) if (c.trim()) visit(Number(c));
    }
  };
  visit(pid);
  return { pids, tids };
}

/** The threads of process `pid` alone. */
function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

/**
 * Gives every thread of process `pid` (and of its descendants, unless told not to) the nice value `nice`: lowering always
 * works, raising needs the privilege to (root, CAP_SYS_NICE, or RLIMIT_NICE). False if any thread
 * could not be changed.
 */
export function niceTree(pid: number, nice: number, descendants = true): boolean {
  const tids = descendants ? processTree(pid).tids : threadsOf(pid);
  let all = tids.length > 0;
  for (const tid of tids) {
    try {
      if (getPriority(tid) !== nice) setPriority(tid, nice);
    } catch {
      all = false;
    }
  }
  return all;
}
