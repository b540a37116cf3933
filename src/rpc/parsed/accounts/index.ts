// Agave's account-decoder `jsonParsed` account forms (parse_account_data_v3). The owner picks the
// program family; whenever Agave's decoder errs (unknown owner, malformed or truncated data, a
// token account whose mint is missing) the answer is undefined and the caller falls back to
// base64, as Agave's UiAccount::encode does.
import { encodeBase58 } from '../../../zk/base58.js';
import { parseAddressLookupTable } from './address-lookup-table.js';
import { parseBpfUpgradeableLoader } from './bpf-loader.js';
import { parseConfig } from './config.js';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  BPF_UPGRADEABLE_LOADER,
  CONFIG_PROGRAM,
  STAKE_PROGRAM,
  SYSTEM_PROGRAM,
  SYSVAR_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  VOTE_PROGRAM,
} from './ids.js';
import { parseNonce } from './nonce.js';
import { sortedJson } from '../sorted-json.js';
import { DecodeError } from './reader.js';
import { parseStake } from './stake.js';
import { parseSysvar } from './sysvar.js';
import { parseToken } from './token.js';
import { parseVote } from './vote.js';

export interface AccountParseContext {
  /** Raw data of another account (for a token account: its mint), or undefined if absent. */
  accountData(pubkey: Uint8Array): { owner: Uint8Array; data: Uint8Array } | undefined;
  /** The Clock sysvar's unix_timestamp (Token-2022 interest-bearing / scaled-ui-amount uiAmount). */
  unixTimestamp(): bigint;
}

export interface ParsedAccount {
  program: string;
  parsed: unknown;
  space: number;
}

type Parser = (pubkey: string, data: Uint8Array, ctx: AccountParseContext) => unknown;

// Program names are Agave's ParsableAccount variants in kebab case.
const PARSERS = new Map<string, { program: string; parse: Parser }>([
  [ADDRESS_LOOKUP_TABLE_PROGRAM, { program: 'address-lookup-table', parse: (_k, d) => parseAddressLookupTable(d) }],
  [BPF_UPGRADEABLE_LOADER, { program: 'bpf-upgradeable-loader', parse: (_k, d) => parseBpfUpgradeableLoader(d) }],
  [CONFIG_PROGRAM, { program: 'config', parse: (k, d) => parseConfig(k, d) }],
  [SYSTEM_PROGRAM, { program: 'nonce', parse: (_k, d) => parseNonce(d) }],
  [TOKEN_PROGRAM, { program: 'spl-token', parse: (_k, d, ctx) => parseToken(d, ctx) }],
  [TOKEN_2022_PROGRAM, { program: 'spl-token-2022', parse: (_k, d, ctx) => parseToken(d, ctx) }],
  [STAKE_PROGRAM, { program: 'stake', parse: (_k, d) => parseStake(d) }],
  [SYSVAR_PROGRAM, { program: 'sysvar', parse: (k, d) => parseSysvar(k, d) }],
  [VOTE_PROGRAM, { program: 'vote', parse: (_k, d) => parseVote(d) }],
]);

/** Agave's parse_account_data_v3: undefined when the owner is not a parsable program or the data does not parse (the caller then falls back to base64, as Agave does). */
export function parseAccountData(
  pubkey: Uint8Array,
  owner: Uint8Array,
  data: Uint8Array,
  ctx: AccountParseContext,
): ParsedAccount | undefined {
  const entry = PARSERS.get(encodeBase58(owner));
  if (!entry) return undefined;
  let parsed: unknown;
  try {
    parsed = entry.parse(encodeBase58(pubkey), data, ctx);
  } catch (e) {
    // Odd data is "not parsable", never a failed request; anything else (a failing ctx lookup)
    // is a real error and propagates.
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
  return parsed === undefined ? undefined : { program: entry.program, parsed: sortedJson(parsed), space: data.length };
}

/** For getTokenAccountsByOwner/Delegate jsonParsed: true if `owner` is SPL Token or Token-2022. */
export function isTokenProgram(owner: Uint8Array): boolean {
  const id = encodeBase58(owner);
  return id === TOKEN_PROGRAM || id === TOKEN_2022_PROGRAM;
}
