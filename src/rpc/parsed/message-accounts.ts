// A message's account keys as the jsonParsed encoding (and transactionDetails "accounts") shows
// them: {pubkey, writable, signer, source}, static keys then lookup-table keys. Writability is the
// runtime's, not the header's: reserved keys (builtin programs, sysvars) and keys called as
// programs (unless the upgradeable loader is present) are demoted to read-only, as Agave does.
import { isStaticWritable, type ParsedTransaction } from '../../ledger/tx-wire.js';
import { encodeBase58 } from '../../zk/base58.js';

export interface ParsedMessageAccount {
  pubkey: string;
  writable: boolean;
  signer: boolean;
  source: 'transaction' | 'lookupTable';
}

const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';

/** Agave's reserved account keys (builtins and sysvars active on a current cluster). */
const RESERVED = new Set([
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  UPGRADEABLE_LOADER,
  'LoaderV411111111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'Feature111111111111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'StakeConfig11111111111111111111111111111111',
  '11111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  'ZkTokenProof1111111111111111111111111111111',
  'SysvarC1ock11111111111111111111111111111111',
  'SysvarEpochRewards1111111111111111111111111',
  'SysvarEpochSchedu1e111111111111111111111111',
  'SysvarFees111111111111111111111111111111111',
  'Sysvar1nstructions1111111111111111111111111',
  'SysvarLastRestartS1ot1111111111111111111111',
  'SysvarRecentB1ockHashes11111111111111111111',
  'SysvarRent111111111111111111111111111111111',
  'SysvarRewards111111111111111111111111111111',
  'SysvarS1otHashes111111111111111111111111111',
  'SysvarS1otHistory11111111111111111111111111',
  'SysvarStakeHistory1111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
]);

/** Static keys then loaded ones (writable, then readonly), base58: the indices instructions use. */
export function messageKeys(tx: ParsedTransaction, loaded: { writable: string[]; readonly: string[] }): string[] {
  return [...tx.staticKeys.map(encodeBase58), ...loaded.writable, ...loaded.readonly];
}

export function parsedMessageAccounts(
  tx: ParsedTransaction,
  loaded: { writable: string[]; readonly: string[] },
): ParsedMessageAccount[] {
  const keys = messageKeys(tx, loaded);
  const calledAsProgram = new Set(tx.instructions.map((ix) => ix.programIdIndex));
  const loaderPresent = keys.includes(UPGRADEABLE_LOADER);
  const demoted = (i: number) => RESERVED.has(keys[i]!) || (calledAsProgram.has(i) && !loaderPresent);
  const nStatic = tx.staticKeys.length;
  return keys.map((pubkey, i) => ({
    pubkey,
    writable: (i < nStatic ? isStaticWritable(tx, i) : i < nStatic + loaded.writable.length) && !demoted(i),
    signer: i < tx.numRequiredSignatures,
    source: i < nStatic ? 'transaction' : 'lookupTable',
  }));
}
