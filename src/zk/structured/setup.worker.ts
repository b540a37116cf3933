// Worker thread: the dev setup of one structured circuit (setup.ts). It runs for minutes with a few
// GB of per-wire values, so it gets a thread (and heap limit) of its own rather than the caller's
// event loop; its fixed-base work fans out to the setup pool from here.
import { workerData } from 'node:worker_threads';
import { NICE_BUILD, niceThisThread } from '../../util/thread-priority.js';
import { runSetupTask } from '../setup/dev-setup-thread.js';
import { structuredCircuit } from './registry.js';
import { structuredSetup } from './setup.js';

export interface StructuredSetupTask {
  shape: string;
  zkeyPath: string;
  seed: string;
  label: string;
}

const task = workerData as StructuredSetupTask;
niceThisThread(NICE_BUILD);
const circuit = structuredCircuit(task.shape);
if (!circuit) throw new Error(`${task.shape} is not a structured circuit`);
await runSetupTask((progress) =>
  structuredSetup(circuit, task.zkeyPath, { seed: task.seed, label: task.label, progress }),
);
