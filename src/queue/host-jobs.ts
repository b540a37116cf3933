// What a prover host does with a claimed job: Light's /prove body proved like a /prove request, or
// a zkgate batch job like the forester's own; the result is Light's proof JSON. The first proof of
// each key publishes its verifying key, which fronts install into their ledgers.
import { parseProveBody } from '../prover/light-json.js';
import { ProverError } from '../prover/errors.js';
import type { ProverService } from '../prover/service.js';
import type { CircuitInputs } from '../zk/inputs.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';
import { ZKGATE_BATCH_TYPE } from './layout.js';
import type { ProvedJob } from './worker.js';

/** The circuit types of the jobs Light's processes wrote that a zkgate host takes in: what its /prove parses. */
export const HOST_INTAKE = ['inclusion', 'non-inclusion', 'combined'] as const;

export function hostJobProver(
  service: ProverService,
  queue: JobQueue,
  proofTimeoutMs: number,
): (job: ClaimedJob) => Promise<ProvedJob> {
  const published = new Set<string>();
  return async (job) => {
    const p = job.payload as { circuitType?: unknown; circuit?: unknown; inputs?: unknown } | null;
    let proved: { raw: object; circuit: string; keySha256: string };
    if (p?.circuitType === ZKGATE_BATCH_TYPE) {
      if (typeof p.circuit !== 'string' || p.inputs === null || typeof p.inputs !== 'object')
        throw new ProverError('invalid_argument', 'batch job: expected {"circuit": string, "inputs": object}');
      const proof = await service.proveBatch(p.circuit, p.inputs as CircuitInputs);
      proved = { raw: proof.raw, circuit: p.circuit, keySha256: proof.keySha256 };
    } else {
      // Within the job's own deadline; building its key only if the front it came in at allowed it.
      const r = await service.prove(parseProveBody(p), {
        deadline: Date.now() + Math.max(0, Math.min(proofTimeoutMs, job.msLeft)),
        caller: 'queue',
        mayBuild: () => job.mayBuild,
      });
      proved = { raw: r.proof.raw, circuit: r.circuit, keySha256: r.proof.keySha256 };
    }
    const id = `${proved.circuit}:${proved.keySha256}`;
    if (!published.has(id)) {
      const { vk } = await service.verifyingKey(proved.circuit, { deadline: Number.MAX_SAFE_INTEGER });
      await queue.publishVerifyingKey(proved.circuit, proved.keySha256, JSON.stringify(vk));
      published.add(id);
    }
    return { result: JSON.stringify(proved.raw), circuit: proved.circuit, keySha256: proved.keySha256 };
  };
}
