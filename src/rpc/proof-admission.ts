// The adapter's own bound on proofs in flight, per API key and in all: what is over it is refused
// here at once, without the trip to the prover (gRPC, tree paths, hashing), which in a burst costs
// every request behind it in the event loop. The prover still decides what it admits; the bound
// only sheds what it would refuse anyway: its running proofs plus its queue (per key: its share).
import type { MetricsRegistry } from '../obs/metrics.js';
import { ProverError } from '../prover/errors.js';
import type { ValidityProofBackend } from './methods/backends.js';

export interface ProofAdmissionLimits {
  /** Most proofs in flight from one caller (API key). */
  perCaller: number;
  /** Most proofs in flight in all. */
  total: number;
}

export function admitProofs(
  backend: ValidityProofBackend,
  limits: ProofAdmissionLimits,
  metrics?: MetricsRegistry,
): ValidityProofBackend {
  const shed = metrics?.counter(
    'zkgate_proofs_shed_total',
    'Proof requests the adapter refused before calling the prover, by the limit reached',
    ['limit'],
  );
  let inFlight = 0;
  const byCaller = new Map<string, number>();
  return {
    async getValidityProof(req) {
      const caller = req.caller ?? '';
      const mine = byCaller.get(caller) ?? 0;
      if (mine >= limits.perCaller) {
        shed?.inc(['caller']);
        throw new ProverError(
          'prover_busy',
          `Prover busy: this client already has ${mine} proofs running or queued, the most one client may have; retry when they finish`,
        );
      }
      if (inFlight >= limits.total) {
        shed?.inc(['total']);
        throw new ProverError(
          'prover_busy',
          `Prover busy: ${inFlight} proofs running or queued (the limit); retry shortly`,
        );
      }
      inFlight++;
      byCaller.set(caller, mine + 1);
      try {
        return await backend.getValidityProof(req);
      } finally {
        inFlight--;
        const n = byCaller.get(caller)! - 1;
        if (n > 0) byCaller.set(caller, n);
        else byCaller.delete(caller);
      }
    },
  };
}
