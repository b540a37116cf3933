// devSetup on a worker thread (dev-setup.worker.ts), one at a time in this process: a build is
// minutes of CPU and gigabytes for the large shapes, and requests keep being served meanwhile.
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../../util/worker-url.js';
import type { DevSetupResult, Progress } from './dev-setup.js';
import type { DevSetupTask } from './dev-setup.worker.js';

let queue: Promise<unknown> = Promise.resolve();

function run(task: DevSetupTask, progress?: Progress): Promise<DevSetupResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(workerUrl(new URL('./dev-setup.worker.js', import.meta.url))), {
      workerData: task,
    });
    let result: DevSetupResult | undefined;
    worker.on('message', (m: { progress?: [string, number, number]; result?: DevSetupResult }) => {
      if (m.progress) progress?.(...m.progress);
      if (m.result) result = m.result;
    });
    worker.on('error', reject);
    worker.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the setup of ${task.label} stopped (exit code ${code})`)),
    );
  });
}

/** devSetup's work on a thread of its own, after any build already running in this process. */
export function devSetupOnThread(task: DevSetupTask, progress?: Progress): Promise<DevSetupResult> {
  const next = queue.then(
    () => run(task, progress),
    () => run(task, progress),
  );
  queue = next.catch(() => undefined);
  return next;
}
