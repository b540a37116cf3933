// Agave's parse_ui_instruction, the `jsonParsed` encoding of one instruction: the programs Agave
// parses (its ParsableProgram list) come out as `{program, programId, parsed, stackHeight}`; any
// other program, or an instruction of theirs that does not parse, as the partially decoded
// `{programId, accounts, data, stackHeight}`. The compute budget program is not on Agave's list.
import { encodeBase58 } from '../../../zk/base58.js';
import { NotParsable, sortKeys } from './common.js';
import { parseAddressLookupTable } from './address-lookup-table.js';
import { parseAssociatedToken } from './associated-token.js';
import { parseBpfLoader, parseBpfUpgradeableLoader } from './bpf-loader.js';
import { parseMemo } from './memo.js';
import { parseStake } from './stake.js';
import { parseSystem } from './system.js';
import { parseToken } from './token.js';
import { parseVote } from './vote.js';

type Parser = (accounts: readonly string[], data: Uint8Array) => unknown;

// Program id → [program name as Agave writes it (kebab-case ParsableProgram), parser].
const PROGRAMS = new Map<string, [string, Parser]>([
  ['AddressLookupTab1e1111111111111111111111111', ['address-lookup-table', parseAddressLookupTable]],
  ['ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', ['spl-associated-token-account', parseAssociatedToken]],
  ['Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo', ['spl-memo', (_a, d) => parseMemo(d)]],
  ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', ['spl-memo', (_a, d) => parseMemo(d)]],
  ['Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH', ['spl-memo', (_a, d) => parseMemo(d)]],
  ['BPFLoader2111111111111111111111111111111111', ['bpf-loader', parseBpfLoader]],
  ['BPFLoaderUpgradeab1e11111111111111111111111', ['bpf-upgradeable-loader', parseBpfUpgradeableLoader]],
  ['Stake11111111111111111111111111111111111111', ['stake', parseStake]],
  ['11111111111111111111111111111111', ['system', parseSystem]],
  ['Vote111111111111111111111111111111111111111', ['vote', parseVote]],
  ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', ['spl-token', parseToken]],
  ['TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', ['spl-token', parseToken]],
]);

/** Agave's parse_ui_instruction: a parsed instruction `{program, programId, parsed, stackHeight}` for the programs Agave parses; otherwise (unknown program, or data that does not parse) the partially decoded form `{programId, accounts, data, stackHeight}` with accounts as base58 strings and data base58. */
export function parseInstruction(
  programId: string,
  accounts: readonly string[],
  data: Uint8Array,
  stackHeight: number | null,
): unknown {
  let result: ParsedProgram | null = null;
  try {
    result = parseProgram(programId, accounts, data);
  } catch {
    // Only a parser bug lands here; an answer (the partially decoded form) is still better than none.
  }
  if (result) return { program: result.program, programId, parsed: result.parsed, stackHeight };
  return { programId, accounts: [...accounts], data: encodeBase58(data), stackHeight };
}

export interface ParsedProgram {
  program: string;
  parsed: unknown;
}

/** The program name and parsed value, or null where Agave gives the partially decoded form. */
export function parseProgram(programId: string, accounts: readonly string[], data: Uint8Array): ParsedProgram | null {
  const entry = PROGRAMS.get(programId);
  if (!entry) return null;
  try {
    return { program: entry[0], parsed: sortKeys(entry[1](accounts, data)) };
  } catch (e) {
    if (e instanceof NotParsable) return null;
    throw e;
  }
}
