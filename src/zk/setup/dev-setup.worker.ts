// Worker thread: the dev setup of one circom circuit (dev-setup.ts). Its BigInt passes run for
// seconds to minutes; on the gateway's event loop they froze every request meanwhile (getHealth
// timed out), so a build gets a thread of its own.
import { parentPort, workerData } from 'node:worker_threads';
import { closeSetupWorkers, devSetup } from './dev-setup.js';

export interface DevSetupTask {
  r1csPath: string;
  zkeyPath: string;
  seed: string;
  label: string;
}

const task = workerData as DevSetupTask;
try {
  const result = await devSetup(task.r1csPath, task.zkeyPath, {
    seed: task.seed,
    label: task.label,
    progress: (step, done, total) => parentPort!.postMessage({ progress: [step, done, total] }),
  });
  parentPort!.postMessage({ result });
} finally {
  await closeSetupWorkers();
}
