// Throughput work (proofs, key builds) yields the CPU to the event loop that answers requests: on
// Linux a thread's nice value is its own, and threads it starts afterwards (the native prover's,
// a worker's helpers) inherit it. Where the CPU is contended, health checks and refusals then
// stay fast; where it is not, the work runs as fast as before.
import { readlinkSync } from 'node:fs';
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
