// Child of the follower crash test: follows the cluster at argv[2] into the index at argv[3],
// printing the slot indexed through each time it moves, until the parent kills it.
import { ClusterFollower, ClusterIndex, ClusterRpc, RpcBlockSource } from '../../src/ingest/index.js';
import { Prefetcher } from '../../src/ingest/prefetch.js';
import { createLogger } from '../../src/obs/log.js';
import { loadPoseidon } from '../../src/zk/index.js';

const [url, dir] = process.argv.slice(2) as [string, string];
await loadPoseidon();
const log = createLogger('error');
const rpc = new ClusterRpc({ url, timeoutMs: 5000, log, minBackoffMs: 10, maxBackoffMs: 100 });
const index = ClusterIndex.open(dir, log);
// As the gateway follows: getBlock's calls made ahead on a thread.
const prefetch = new Prefetcher({ url, timeoutMs: 5000, concurrency: 8, maxAhead: 256, maxBytes: 64 << 20 });
const source = new RpcBlockSource({ rpc, commitment: 'finalized', ahead: 4, pollMs: 20, prefetch, log });
const follower = new ClusterFollower({ rpc, source, index, log });
await follower.start();
let last = -2n;
setInterval(() => {
  if (follower.indexedSlot === last) return;
  last = follower.indexedSlot;
  process.stdout.write(`indexed ${last}\n`);
}, 5);
