// A key's setup on a worker thread, one at a time in this process: a build is minutes of CPU and
// gigabytes for the large shapes, and requests keep being served meanwhile. The worker module
// posts `{progress}` messages and one `{result}`.
import { parentPort, Worker, type ResourceLimits } from 'node:worker_threads';
import { workerUrl } from '../../util/worker-url.js';
import { closeSetupWorkers, type DevSetupResult, type Progress } from './dev-setup.js';
import type { DevSetupTask } from './dev-setup.worker.js';

let queue: Promise<unknown> = Promise.resolve();

function run(
  module: URL,
  task: unknown,
  label: string,
  progress: Progress | undefined,
  resourceLimits: ResourceLimits | undefined,
): Promise<DevSetupResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(workerUrl(module)), {
      workerData: task,
      ...(resourceLimits ? { resourceLimits } : {}),
    });
    let result: DevSetupResult | undefined;
    worker.on('message', (m: { progress?: [string, number, number]; result?: DevSetupResult }) => {
      if (m.progress) progress?.(...m.progress);
      if (m.result) result = m.result;
    });
    worker.on('error', reject);
    worker.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the setup of ${label} stopped (exit code ${code})`)),
    );
  });
}

/** A setup worker module's run on its own thread, after any build already running in this process. */
export function setupOnThread(
  module: URL,
  task: unknown,
  label: string,
  progress?: Progress,
  resourceLimits?: ResourceLimits,
): Promise<DevSetupResult> {
  const next = queue.then(
    () => run(module, task, label, progress, resourceLimits),
    () => run(module, task, label, progress, resourceLimits),
  );
  queue = next.catch(() => undefined);
  return next;
}

/** devSetup (dev-setup.worker.ts) on its own thread. */
export const devSetupOnThread = (task: DevSetupTask, progress?: Progress): Promise<DevSetupResult> =>
  setupOnThread(new URL('./dev-setup.worker.js', import.meta.url), task, task.label, progress);

/** Inside a setup worker: runs the setup, posting its progress and result to the thread that started it. */
export async function runSetupTask(setup: (progress: Progress) => Promise<DevSetupResult>): Promise<void> {
  try {
    const result = await setup((step, done, total) => parentPort!.postMessage({ progress: [step, done, total] }));
    parentPort!.postMessage({ result });
  } finally {
    await closeSetupWorkers();
  }
}
