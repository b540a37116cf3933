// The embedded ledger: litesvm VM + LMDB persistence + slot clock. See ledger.ts.
export {
  Ledger,
  MAX_PROCESSING_AGE,
  SLOTS_PER_EPOCH,
  SLOT_MS,
  SYSTEM_PROGRAM,
  toStored,
  type AccountIndexer,
  type ChainTransaction,
  type CommittedTransaction,
  type InnerInstruction,
  type StoredTransaction,
  type TransactionIndexer,
  type Commitment,
  type ExecutionResult,
  type LedgerOptions,
  type LedgerEvent,
  type AccountChange,
} from './ledger.js';
export {
  parseMessage,
  parseTransaction,
  transactionVersion,
  isStaticWritable,
  withBlockhash,
  TxDecodeError,
  PACKET_DATA_SIZE,
  assembleTransaction,
  type ParsedTransaction,
  type TransactionParts,
} from './tx-wire.js';
export type { TokenBalance } from './token-balances.js';
export { solanaTxError, txError, txErrorFromJson, type SolanaTxError } from './tx-error.js';
export { verifySignatures } from './signatures.js';
export type { BlockRecord, StoredAccount, TxRecord } from './store.js';
export {
  FixtureError,
  lightLocalnet,
  readAccountDir,
  readAccountFile,
  readProgramSpec,
  type AccountFixture,
  type ProgramFixture,
} from './fixtures.js';
export { ForkSource } from './fork.js';
export { ClusterBank, type ClusterView } from './cluster-bank.js';
export { AccountIndexes, tokenAccountKeys, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from './account-indexes.js';
export {
  ACCOUNT_COMPRESSION_PROGRAM_FILE,
  LIGHT_SYSTEM_PROGRAM_FILE,
  PatchedProgram,
  ShippedProgram,
  type VerifierProgram,
  accountCompressionProgram,
  VerifierKeyError,
  expectedRecords,
  lightSystemProgram,
  locateVkRecords,
  patchVkRecords,
  publicInputCount,
  type InstalledKey,
  type VkRecordLocation,
} from './verifier-keys.js';
export { LIGHT_IDS, LIGHT_SYSTEM_PROGRAM_ID } from './light-ids.js';
export { checkLightPackage } from './light-package.js';
export {
  GenesisError,
  genesisAccountsDir,
  parseOutputQueue,
  parseTreeAccount,
  parseTreeMetadata,
  TREE_DISCRIMINATORS,
  TREE_METADATA_BYTES,
  type TreeMetadata,
  parseBatchOutputQueue,
  parseBatchTree,
  queuedEntries,
  readyZkpBatch,
  BATCH_STATE,
  type BatchQueue,
  type BatchTreeState,
  type QueueBatch,
  readGenesisTrees,
  type GenesisTree,
} from './light-accounts.js';
export { bootstrapLocalnetTrees } from './light-trees.js';
