// litesvm's error values → Solana's JSON form (serde of TransactionError, as RPC nodes answer)
// and its Display text (as Jito's bundle summary quotes it). The fieldless variants are numbered in
// declaration order by litesvm's const enums (pinned version); names and texts are agave's.
import type { FailedTransactionMetadata } from './vm.js';

/** [variant, Display] in litesvm's TransactionErrorFieldless order. */
const TX_FIELDLESS: readonly [string, string][] = [
  ['AccountInUse', 'Account in use'],
  ['AccountLoadedTwice', 'Account loaded twice'],
  ['AccountNotFound', 'Attempt to debit an account but found no record of a prior credit.'],
  ['ProgramAccountNotFound', 'Attempt to load a program that does not exist'],
  ['InsufficientFundsForFee', 'Insufficient funds for fee'],
  ['InvalidAccountForFee', 'This account may not be used to pay transaction fees'],
  ['AlreadyProcessed', 'This transaction has already been processed'],
  ['BlockhashNotFound', 'Blockhash not found'],
  ['CallChainTooDeep', 'Loader call chain is too deep'],
  ['MissingSignatureForFee', 'Transaction requires a fee but has no signature present'],
  ['InvalidAccountIndex', 'Transaction contains an invalid account reference'],
  ['SignatureFailure', 'Transaction did not pass signature verification'],
  ['InvalidProgramForExecution', 'This program may not be used for executing instructions'],
  ['SanitizeFailure', 'Transaction failed to sanitize accounts offsets correctly'],
  ['ClusterMaintenance', 'Transactions are currently disabled due to cluster maintenance'],
  ['AccountBorrowOutstanding', 'Transaction processing left an account with an outstanding borrowed reference'],
  ['WouldExceedMaxBlockCostLimit', 'Transaction would exceed max Block Cost Limit'],
  ['UnsupportedVersion', 'Transaction version is unsupported'],
  ['InvalidWritableAccount', 'Transaction loads a writable account that cannot be written'],
  ['WouldExceedMaxAccountCostLimit', 'Transaction would exceed max account limit within the block'],
  ['WouldExceedAccountDataBlockLimit', 'Transaction would exceed account data limit within the block'],
  ['TooManyAccountLocks', 'Transaction locked too many accounts'],
  ['AddressLookupTableNotFound', "Transaction loads an address table account that doesn't exist"],
  ['InvalidAddressLookupTableOwner', 'Transaction loads an address table account with an invalid owner'],
  ['InvalidAddressLookupTableData', 'Transaction loads an address table account with invalid data'],
  ['InvalidAddressLookupTableIndex', 'Transaction address table lookup uses an invalid index'],
  ['InvalidRentPayingAccount', 'Transaction leaves an account with a lower balance than rent-exempt minimum'],
  ['WouldExceedMaxVoteCostLimit', 'Transaction would exceed max Vote Cost Limit'],
  ['WouldExceedAccountDataTotalLimit', 'Transaction would exceed total account data limit'],
  ['MaxLoadedAccountsDataSizeExceeded', 'Transaction exceeded max loaded accounts data size cap'],
  ['ResanitizationNeeded', 'ResanitizationNeeded'],
  ['InvalidLoadedAccountsDataSizeLimit', 'LoadedAccountsDataSizeLimit set for transaction must be greater than 0.'],
  ['UnbalancedTransaction', 'Sum of account balances before and after transaction do not match'],
  ['ProgramCacheHitMaxLimit', 'Program cache hit max limit'],
  ['CommitCancelled', 'CommitCancelled'],
];

/** [variant, Display] in litesvm's InstructionErrorFieldless order. */
const IX_FIELDLESS: readonly [string, string][] = [
  ['GenericError', 'generic instruction error'],
  ['InvalidArgument', 'invalid program argument'],
  ['InvalidInstructionData', 'invalid instruction data'],
  ['InvalidAccountData', 'invalid account data for instruction'],
  ['AccountDataTooSmall', 'account data too small for instruction'],
  ['InsufficientFunds', 'insufficient funds for instruction'],
  ['IncorrectProgramId', 'incorrect program id for instruction'],
  ['MissingRequiredSignature', 'missing required signature for instruction'],
  ['AccountAlreadyInitialized', 'instruction requires an uninitialized account'],
  ['UninitializedAccount', 'instruction requires an initialized account'],
  ['UnbalancedInstruction', 'sum of account balances before and after instruction do not match'],
  ['ModifiedProgramId', 'instruction illegally modified the program id of an account'],
  ['ExternalAccountLamportSpend', 'instruction spent from the balance of an account it does not own'],
  ['ExternalAccountDataModified', 'instruction modified data of an account it does not own'],
  ['ReadonlyLamportChange', 'instruction changed the balance of a read-only account'],
  ['ReadonlyDataModified', 'instruction modified data of a read-only account'],
  ['DuplicateAccountIndex', 'instruction contains duplicate accounts'],
  ['ExecutableModified', 'instruction changed executable bit of an account'],
  ['RentEpochModified', 'instruction modified rent epoch of an account'],
  ['NotEnoughAccountKeys', 'insufficient account keys for instruction'],
  ['AccountDataSizeChanged', "program other than the account's owner changed the size of the account data"],
  ['AccountNotExecutable', 'instruction expected an executable account'],
  ['AccountBorrowFailed', 'instruction tries to borrow reference for an account which is already borrowed'],
  ['AccountBorrowOutstanding', 'instruction left account with an outstanding borrowed reference'],
  ['DuplicateAccountOutOfSync', 'instruction modifications of multiply-passed account differ'],
  ['InvalidError', 'program returned invalid error code'],
  ['ExecutableDataModified', 'instruction changed executable accounts data'],
  ['ExecutableLamportChange', 'instruction changed the balance of an executable account'],
  ['ExecutableAccountNotRentExempt', 'executable accounts must be rent exempt'],
  ['UnsupportedProgramId', 'Unsupported program id'],
  ['CallDepth', 'Cross-program invocation call depth too deep'],
  ['MissingAccount', 'An account required by the instruction is missing'],
  ['ReentrancyNotAllowed', 'Cross-program invocation reentrancy not allowed for this instruction'],
  ['MaxSeedLengthExceeded', 'Length of the seed is too long for address generation'],
  ['InvalidSeeds', 'Provided seeds do not result in a valid address'],
  ['InvalidRealloc', 'Failed to reallocate account data'],
  ['ComputationalBudgetExceeded', 'Computational budget exceeded'],
  ['PrivilegeEscalation', 'Cross-program invocation with unauthorized signer or writable account'],
  ['ProgramEnvironmentSetupFailure', 'Failed to create program execution environment'],
  ['ProgramFailedToComplete', 'Program failed to complete'],
  ['ProgramFailedToCompile', 'Program failed to compile'],
  ['Immutable', 'Account is immutable'],
  ['IncorrectAuthority', 'Incorrect authority provided'],
  ['AccountNotRentExempt', 'An account does not have enough lamports to be rent-exempt'],
  ['InvalidAccountOwner', 'Invalid account owner'],
  ['ArithmeticOverflow', 'Program arithmetic overflowed'],
  ['UnsupportedSysvar', 'Unsupported sysvar'],
  ['IllegalOwner', 'Provided owner is not allowed'],
  ['MaxAccountsDataAllocationsExceeded', 'Accounts data allocations exceeded the maximum allowed per transaction'],
  ['MaxAccountsExceeded', 'Max accounts exceeded'],
  ['MaxInstructionTraceLengthExceeded', 'Max instruction trace length exceeded'],
  ['BuiltinProgramsMustConsumeComputeUnits', 'Builtin programs must consume compute units'],
  ['BorshIoError', 'Failed to serialize or deserialize account data'],
];

export interface SolanaTxError {
  /** Solana's serde JSON of the TransactionError. */
  json: unknown;
  /** Its Display text. */
  display: string;
}

type Err = ReturnType<FailedTransactionMetadata['err']>;

function instructionError(e: unknown): SolanaTxError {
  if (typeof e === 'number') {
    const [name, display] = IX_FIELDLESS[e] ?? ['GenericError', 'generic instruction error'];
    return { json: name, display };
  }
  const o = e as { code?: number; msg?: string };
  if (typeof o.code === 'number')
    return { json: { Custom: o.code }, display: `custom program error: 0x${o.code.toString(16)}` };
  return {
    json: { BorshIoError: o.msg ?? '' },
    display: 'Failed to serialize or deserialize account data',
  };
}

export function solanaTxError(err: Err): SolanaTxError {
  if (typeof err === 'number') {
    const [name, display] = TX_FIELDLESS[err] ?? ['SanitizeFailure', TX_FIELDLESS[13]![1]];
    return { json: name, display };
  }
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown; constructor: { name: string } };
  if (typeof e.err === 'function') {
    const inner = instructionError(e.err());
    return {
      json: { InstructionError: [e.index, inner.json] },
      display: `Error processing Instruction ${e.index}: ${inner.display}`,
    };
  }
  if (e.constructor.name.includes('InsufficientFundsForRent'))
    return {
      json: { InsufficientFundsForRent: { account_index: e.accountIndex } },
      display: `Transaction results in an account (${e.accountIndex}) with insufficient funds for rent`,
    };
  if (e.constructor.name.includes('DuplicateInstruction'))
    return {
      json: { DuplicateInstruction: e.index },
      display: `Transaction contains a duplicate instruction (${e.index}) that is not allowed`,
    };
  return {
    json: { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } },
    display: `Execution of the program referenced by account at index ${e.accountIndex} is temporarily restricted.`,
  };
}

/** Errors zkgate raises itself before the VM runs (blockhash age, signatures). */
export const txError = (name: string): SolanaTxError => {
  const hit = TX_FIELDLESS.find(([n]) => n === name);
  return { json: name, display: hit?.[1] ?? name };
};

const displayOf = (table: readonly [string, string][], name: string) => table.find(([n]) => n === name)?.[1];

/**
 * A transaction error as an RPC node answers it (serde JSON: `"BlockhashNotFound"`,
 * `{"InstructionError":[0,{"Custom":1}]}`, …) with its Display text, for transactions read from a
 * cluster. Variants these tables do not name keep their JSON and show it as their text.
 */
export function txErrorFromJson(json: unknown): SolanaTxError {
  if (typeof json === 'string') return { json, display: displayOf(TX_FIELDLESS, json) ?? json };
  const o = json as Record<string, unknown> | null;
  const ie = o?.InstructionError;
  if (Array.isArray(ie) && ie.length === 2 && typeof ie[0] === 'number') {
    const [index, inner] = ie as [number, unknown];
    let display: string;
    if (typeof inner === 'string') display = displayOf(IX_FIELDLESS, inner) ?? inner;
    else if (typeof (inner as { Custom?: unknown })?.Custom === 'number')
      display = `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`;
    else if ((inner as { BorshIoError?: unknown })?.BorshIoError !== undefined)
      display = 'Failed to serialize or deserialize account data';
    else display = JSON.stringify(inner);
    return { json, display: `Error processing Instruction ${index}: ${display}` };
  }
  const rent = (o?.InsufficientFundsForRent as { account_index?: unknown } | undefined)?.account_index;
  if (typeof rent === 'number')
    return { json, display: `Transaction results in an account (${rent}) with insufficient funds for rent` };
  if (typeof o?.DuplicateInstruction === 'number')
    return {
      json,
      display: `Transaction contains a duplicate instruction (${o.DuplicateInstruction}) that is not allowed`,
    };
  return { json, display: JSON.stringify(json) };
}
