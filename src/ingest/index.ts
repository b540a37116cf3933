// Where the index's blocks come from (block-source.ts): the embedded ledger, or a cluster followed
// over its standard JSON-RPC (--cluster-rpc: cluster-rpc.ts, rpc-block.ts, rpc-block-source.ts).
export type { BlockSource, SourceBlock, SourceTransaction, UnreadableTransaction } from './block-source.js';
export { ClusterRpc, CLUSTER_METHODS, clusterOrigin, type ClusterMethod, type RetryReason } from './cluster-rpc.js';
export { MalformedBlockError, readBlock } from './rpc-block.js';
export { RpcBlockSource, type ClusterCommitment, type RpcBlockSourceOptions } from './rpc-block-source.js';
export {
  ClusterIndex,
  ClusterMismatchError,
  LIGHT_PROGRAM_IDS,
  TreeIncompleteError,
  type Checkpoint,
  type PendingBlock,
} from './cluster-index.js';
export { ClusterFollower, type FollowerOptions } from './follower.js';
export { ConsistencyMonitor, type ConsistencyOptions } from './consistency.js';
export { SlotWatch } from './slot-watch.js';
export { UndoLog } from './undo-log.js';
