// Worker thread: the dev setup of one circom circuit (dev-setup.ts). Its BigInt passes run for
// seconds to minutes; on the gateway's event loop they froze every request meanwhile (getHealth
// timed out), so a build gets a thread of its own.
import { workerData } from 'node:worker_threads';
import { NICE_BUILD, niceThisThread } from '../../util/thread-priority.js';
import { devSetup } from './dev-setup.js';
import { runSetupTask } from './dev-setup-thread.js';

export interface DevSetupTask {
  r1csPath: string;
  zkeyPath: string;
  seed: string;
  label: string;
}

const task = workerData as DevSetupTask;
niceThisThread(NICE_BUILD);
await runSetupTask((progress) =>
  devSetup(task.r1csPath, task.zkeyPath, { seed: task.seed, label: task.label, progress }),
);
