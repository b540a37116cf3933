// The token-group and token-metadata interfaces that Token-2022 implements on its own program id
// (Agave's parse_token/extension/token_group.rs and token_metadata.rs). Their instructions open
// with an 8-byte discriminator: the start of the SHA-256 of a fixed name.
import { createHash } from 'node:crypto';
import { type Parsed, NotParsable, Reader, checkAccounts, fail, int, key as k } from './common.js';

type Build = (a: readonly string[]) => Parsed;
type Decode = (r: Reader) => Build;

const discriminator = (name: string) => createHash('sha256').update(name).digest().subarray(0, 8).toString('hex');

function decodeWith(table: Map<string, Decode>, data: Uint8Array): Build | null {
  if (data.length < 8) return null;
  const decode = table.get(Buffer.from(data.subarray(0, 8)).toString('hex'));
  if (!decode) return null;
  try {
    const r = new Reader(data, 8);
    const build = decode(r);
    // Both interfaces read their data to the exact byte (bytemuck casts, borsh's try_from_slice).
    r.end();
    return build;
  } catch (e) {
    if (e instanceof NotParsable) return null;
    throw e;
  }
}

const GROUP = new Map<string, Decode>([
  [
    discriminator('spl_token_group_interface:initialize_token_group'),
    (r) => {
      const updateAuthority = r.optionalPubkey();
      const maxSize = int(r.u64());
      return (a) => {
        checkAccounts(a, 3);
        const info = { group: k(a, 0), maxSize, mint: k(a, 1), mintAuthority: k(a, 2), updateAuthority };
        return { type: 'initializeTokenGroup', info };
      };
    },
  ],
  [
    discriminator('spl_token_group_interface:update_group_max_size'),
    (r) => {
      const maxSize = int(r.u64());
      return (a) => {
        checkAccounts(a, 2);
        return { type: 'updateTokenGroupMaxSize', info: { group: k(a, 0), maxSize, updateAuthority: k(a, 1) } };
      };
    },
  ],
  [
    discriminator('spl_token_group_interface:update_authority'),
    (r) => {
      const newAuthority = r.optionalPubkey();
      return (a) => {
        checkAccounts(a, 2);
        return { type: 'updateTokenGroupAuthority', info: { group: k(a, 0), updateAuthority: k(a, 1), newAuthority } };
      };
    },
  ],
  [
    discriminator('spl_token_group_interface:initialize_member'),
    () => (a) => {
      checkAccounts(a, 5);
      const info = {
        member: k(a, 0),
        memberMint: k(a, 1),
        memberMintAuthority: k(a, 2),
        group: k(a, 3),
        groupUpdateAuthority: k(a, 4),
      };
      return { type: 'initializeTokenGroupMember', info };
    },
  ],
]);

const FIELDS = ['name', 'symbol', 'uri'];

const METADATA = new Map<string, Decode>([
  [
    discriminator('spl_token_metadata_interface:initialize_account'),
    (r) => {
      const name = r.borshString();
      const symbol = r.borshString();
      const uri = r.borshString();
      return (a) => {
        checkAccounts(a, 4);
        const info = {
          metadata: k(a, 0),
          updateAuthority: k(a, 1),
          mint: k(a, 2),
          mintAuthority: k(a, 3),
          name,
          symbol,
          uri,
        };
        return { type: 'initializeTokenMetadata', info };
      };
    },
  ],
  [
    discriminator('spl_token_metadata_interface:updating_field'),
    (r) => {
      // Field: Name, Symbol, Uri, or Key(String) for an additional field.
      const tag = r.u8();
      const field = tag === 3 ? r.borshString() : (FIELDS[tag] ?? fail());
      const value = r.borshString();
      return (a) => {
        checkAccounts(a, 2);
        const info = { metadata: k(a, 0), updateAuthority: k(a, 1), field, value };
        return { type: 'updateTokenMetadataField', info };
      };
    },
  ],
  [
    discriminator('spl_token_metadata_interface:remove_key_ix'),
    (r) => {
      const idempotent = r.flag();
      const key = r.borshString();
      return (a) => {
        checkAccounts(a, 2);
        return {
          type: 'removeTokenMetadataKey',
          info: { metadata: k(a, 0), updateAuthority: k(a, 1), key, idempotent },
        };
      };
    },
  ],
  [
    discriminator('spl_token_metadata_interface:update_the_authority'),
    (r) => {
      const newAuthority = r.optionalPubkey();
      return (a) => {
        checkAccounts(a, 2);
        const info = { metadata: k(a, 0), updateAuthority: k(a, 1), newAuthority };
        return { type: 'updateTokenMetadataAuthority', info };
      };
    },
  ],
  [
    discriminator('spl_token_metadata_interface:emitter'),
    (r) => {
      const start = r.option(() => r.u64());
      const end = r.option(() => r.u64());
      return (a) => {
        checkAccounts(a, 1);
        const info: Record<string, unknown> = { metadata: k(a, 0) };
        if (start !== null) info.start = int(start);
        if (end !== null) info.end = int(end);
        return { type: 'emitTokenMetadata', info };
      };
    },
  ],
]);

export const decodeTokenGroup = (data: Uint8Array) => decodeWith(GROUP, data);
export const decodeTokenMetadata = (data: Uint8Array) => decodeWith(METADATA, data);
