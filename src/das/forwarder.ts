// getAsset forwarded verbatim to a DAS provider (--das-upstream): the caller's params as sent, the
// provider's answer or error relayed, u64 values exact. The caller's api-key is never forwarded.
import { parseJsonExact } from '../rpc/json.js';
import { upstreamCall } from '../rpc/upstream.js';

export class AssetForwarder {
  readonly forwardsRaw = true;
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  getAsset(params: unknown): Promise<unknown> {
    return upstreamCall(this.url, 'getAsset', params, this.timeoutMs, parseJsonExact);
  }
}
