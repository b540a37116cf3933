// A structured key's setup on a worker thread of its own, one at a time in this process: it holds
// gigabytes of per-wire values, under a heap limit of its own. The worker module posts
// `{progress}` messages and one `{result}`.
import { parentPort, Worker, type ResourceLimits } from 'node:worker_threads';
import { workerUrl } from '../../util/worker-url.js';
import { closeSetupWorkers, type DevSetupResult, type Progress } from './dev-setup.js';

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

/** Inside a setup worker: runs the setup, posting its progress and result to the thread that started it. */
export async function runSetupTask(setup: (progress: Progress) => Promise<DevSetupResult>): Promise<void> {
  try {
    const result = await setup((step, done, total) => parentPort!.postMessage({ progress: [step, done, total] }));
    parentPort!.postMessage({ result });
  } finally {
    await closeSetupWorkers();
  }
}
