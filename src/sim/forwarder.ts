// simulateBundle forwarded verbatim to a Jito-enabled RPC (--simulate-upstream): the caller's
// params as sent, the upstream's answer (or its JSON-RPC error) relayed as received, u64 values
// exact. The caller's api-key is never forwarded: the upstream URL is the operator's.
import { parseJsonExact } from '../rpc/json.js';
import { upstreamCall } from '../rpc/upstream.js';

export class BundleForwarder {
  readonly forwardsRaw = true;
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  simulateBundle(params: unknown): Promise<unknown> {
    return upstreamCall(this.url, 'simulateBundle', params, this.timeoutMs, parseJsonExact);
  }
}
