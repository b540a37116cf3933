// A front's proofs through the job queue (--role rpc --queue): validity proofs from the witnesses
// its ledger builds, Light's /prove requests, and the forester's batch proofs are queued, proved
// by whichever prover host claims them, and waited for. The hosts publish the verifying keys of
// the keys they prove with, so the front installs them into its ledger's Light programs as it
// does with a gRPC prover's.
import { ProverError } from '../prover/errors.js';
import type { ExplicitProveRequest } from '../prover/service.js';
import type { WitnessProving } from '../prover/remote-witness.js';
import { lightProveBody } from '../prover/light-json.js';
import { circuitInputs, publicInputs, type CircuitInputs } from '../zk/inputs.js';
import { compressProof, fromRaw, type CompressedProof, type ProofPoints, type RawProof } from '../zk/proof-format.js';
import { shapeByName, type Shape } from '../zk/shapes.js';
import type { SnarkjsVerificationKey } from '../zk/verify.js';
import type { JobQueue, JobStatus } from './job-queue.js';
import { ZKGATE_BATCH_TYPE } from './layout.js';

export interface QueuedProof {
  raw: RawProof;
  points: ProofPoints;
  circuit: string;
  keySha256: string;
}

/** A batch job's payload: the circuit's inputs as they are (decimal strings), and which circuit. */
export const batchPayload = (circuit: string, inputs: CircuitInputs): string =>
  JSON.stringify({ circuitType: ZKGATE_BATCH_TYPE, circuit, inputs });

export class QueueProver implements WitnessProving {
  constructor(
    private readonly queue: JobQueue,
    /** How long a front waits for a client's proof. */
    private readonly timeoutMs: number,
    /**
     * Which shapes a client's request may have a key built for, decided here at the front (its
     * --build-on-demand and exposure, and whether the caller holds an admin key): the job carries
     * it, and a host builds for no job without it.
     */
    private readonly mayBuild: (shape: Shape, admin: boolean) => boolean = () => false,
    /** How long the forester waits for a batch proof (they take about a minute each on CPU). */
    private readonly batchTimeoutMs = 30 * 60_000,
  ) {}

  private async result(s: JobStatus, circuit: string): Promise<QueuedProof> {
    const raw = JSON.parse(s.result!) as RawProof;
    return { raw, points: fromRaw(raw), circuit: s.circuit || circuit, keySha256: s.keySha256 ?? '' };
  }

  /** Light's /prove request, queued and waited for (the caller's deadline and cancellation). */
  async prove(
    req: ExplicitProveRequest,
    shape: Shape,
    run: { deadline?: number; signal?: AbortSignal; admin?: boolean } = {},
  ): Promise<QueuedProof> {
    const deadline = run.deadline ?? Date.now() + this.timeoutMs;
    // The job is wanted as long as its client waits: past that, no host proves it.
    const job = await this.queue.submit('prove', lightProveBody(req), req.circuitType, shape.name, {
      waitMs: deadline - Date.now(),
      mayBuild: this.mayBuild(shape, run.admin ?? false),
    });
    const s = await this.queue.wait(job.id, deadline, run.signal);
    return this.result(s, shape.name);
  }

  async proveExplicit(
    req: ExplicitProveRequest,
    shape: Shape,
    _caller?: string,
    admin?: boolean,
  ): Promise<{ compressed: CompressedProof; circuit: string; publicInputs: bigint[]; keySha256: string }> {
    const r = await this.prove(req, shape, { admin: admin ?? false });
    return {
      compressed: compressProof(r.points),
      circuit: r.circuit,
      publicInputs: publicInputs(shape, circuitInputs(shape, req.accounts, req.addresses)),
      keySha256: r.keySha256,
    };
  }

  /** One of the forester's batch proofs. */
  async proveBatch(circuit: string, inputs: CircuitInputs): Promise<QueuedProof> {
    shapeByName(circuit);
    // The forester's (the operator's): a host may build its key.
    const job = await this.queue.submit('batch', batchPayload(circuit, inputs), ZKGATE_BATCH_TYPE, circuit, {
      waitMs: this.batchTimeoutMs,
      mayBuild: true,
    });
    return this.result(await this.queue.wait(job.id, Date.now() + this.batchTimeoutMs), circuit);
  }

  async verifyingKey(circuit: string, keySha256: string): Promise<SnarkjsVerificationKey> {
    const vk = keySha256 ? await this.queue.verifyingKey(circuit, keySha256) : undefined;
    if (!vk)
      throw new ProverError(
        'prover_internal',
        `the host that proved ${circuit} published no verifying key for it (key ${keySha256 || 'unknown'}): a Light prover's result cannot be installed into this ledger`,
      );
    return JSON.parse(vk) as SnarkjsVerificationKey;
  }
}
