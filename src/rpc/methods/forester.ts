// zkgate_getForesterStatus: the forester's view of Light's queues on the embedded ledger (what
// `zkgate forester status` prints): each V2 queue's fill, the batches proved, sent and failed,
// batch proof times and the last failure. Answered whether the forester runs or not.
import type { ForesterStatus, QueueStatus } from '../../forester/index.js';
import { defineMethod, noParams, type MethodDef } from './types.js';

export interface ForesterBackend {
  /** undefined when the forester is off. */
  status(): ForesterStatus | undefined;
  queues(): QueueStatus[];
}

export function foresterMethods(backend: ForesterBackend | undefined): MethodDef[] {
  if (!backend) return [];
  return [
    defineMethod({
      name: 'zkgate_getForesterStatus',
      params: noParams,
      call: () => {
        const s = backend.status();
        const queues = (s?.queues ?? backend.queues()).map((q) => ({
          ...q,
          fill: Math.round((1000 * q.queued) / q.capacity) / 1000,
        }));
        return s
          ? { enabled: true, ...s, queues }
          : { enabled: false, authority: null, activeEpoch: null, queues, batches: null, proofs: [], lastError: null };
      },
    }),
  ];
}
