// Starts a proving key's build in processes of its own (key-build.guard.ts, which runs
// key-build.child.ts) at a given nice value, and controls it: its progress, a pause while client
// proofs run, a priority raised while it runs, a kill.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { niceTree, processTree } from '../../util/thread-priority.js';
import { workerUrl } from '../../util/worker-url.js';

export interface KeyBuildTask {
  dataDir: string;
  seed: string;
  shape: string;
  /** The nice value of all of the build's threads and processes. */
  nice: number;
}

export type KeyBuildMessage =
  { progress: { step: string; done: number; total: number } } | { built: { sha256: string } } | { failed: string };

export interface KeyBuildProcess {
  readonly pid: number | undefined;
  /** Resolves once the key is on file (built here or found built), rejects with why it is not. */
  readonly done: Promise<void>;
  /** The build's latest step. */
  readonly step: string | undefined;
  /** Changes the nice value of every thread of the build: false where raising it is not allowed. */
  setNice(nice: number): boolean;
  /** Stops the build where it is (true), or lets it go on (false). */
  pause(on: boolean): void;
  /** Stops the build (its compiler too); `done` then rejects. */
  kill(): void;
}

const GUARD = new URL('./key-build.guard.js', import.meta.url);

export function startKeyBuild(task: KeyBuildTask): KeyBuildProcess {
  // Plain JavaScript from dist/: the parent's loader flags (tsx) are not needed there.
  const child = spawn(process.execPath, [fileURLToPath(workerUrl(GUARD)), JSON.stringify(task)], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  /** The build's processes, below its guard: the build itself first, then its compiler. */
  const buildProcesses = () => (child.pid === undefined ? [] : processTree(child.pid).pids.slice(1));
  let step: string | undefined;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let killed = false;
  const done = new Promise<void>((resolve, reject) => {
    let outcome: { ok: true } | { ok: false; why: string } | undefined;
    child.on('message', (m: KeyBuildMessage) => {
      if ('progress' in m) step = m.progress.step;
      else if ('built' in m) outcome = { ok: true };
      else outcome = { ok: false, why: m.failed };
    });
    child.on('error', (e) => reject(new Error(`the build of ${task.shape} could not start: ${e.message}`)));
    child.on('exit', (code, signal) => {
      if (killed) return reject(new Error(`the build of ${task.shape} was stopped`));
      if (outcome?.ok && code === 0) return resolve();
      const why = outcome && !outcome.ok ? outcome.why : stderr.trim().split('\n').slice(-3).join(' ');
      reject(
        new Error(
          `the build of ${task.shape} failed (${signal ?? `exit ${code}`})${why ? `: ${why}` : ''}`.slice(0, 2000),
        ),
      );
    });
  });
  return {
    get pid() {
      return child.pid;
    },
    done,
    get step() {
      return step;
    },
    setNice: (nice) => {
      const pids = buildProcesses();
      return pids.length > 0 && pids.every((pid) => niceTree(pid, nice, false));
    },
    pause(on) {
      // Signalled from here, at once: a stopped build starts no process, so a second look finds
      // any its first look missed.
      const sig = on ? 'SIGSTOP' : 'SIGCONT';
      const done = new Set<number>();
      for (let round = 0; round < 3; round++) {
        const pids = buildProcesses().filter((p) => !done.has(p));
        if (pids.length === 0) break;
        for (const pid of pids) {
          done.add(pid);
          try {
            process.kill(pid, sig);
          } catch {
            // ended meanwhile
          }
        }
      }
    },
    kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      // At once, stopped or not, compiler included: a build holds nothing that needs a clean stop
      // (its lock and temporary files are taken over by the next build of the shape).
      const { pids } = child.pid !== undefined ? processTree(child.pid) : { pids: [] };
      child.kill('SIGKILL');
      for (const pid of pids.slice(1))
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended meanwhile
        }
    },
  };
}
