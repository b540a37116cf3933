// The BPF loaders (Agave's parse_bpf_loader.rs): loader v2 and the upgradeable loader (v3), both
// bincode with a u32 variant tag. The upgradeable loader's variants are those of
// solana-loader-v3-interface 7, Agave's current one: Migrate (8) and ExtendProgramChecked (9), which
// earlier Agave releases parsed, are gone from it and come out partially decoded.
import { type Info, type Parsed, Reader, checkAccounts, fail, int, key as k, requireAnyAccount } from './common.js';

const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

function write(r: Reader): { offset: number; bytes: string } {
  const offset = r.u32();
  const len = r.u64();
  if (len > BigInt(r.remaining)) fail();
  return { offset, bytes: base64(r.bytes_(Number(len))) };
}

export function parseBpfLoader(a: readonly string[], data: Uint8Array): Parsed {
  const r = new Reader(data);
  const tag = r.u32();
  if (tag === 0) {
    const { offset, bytes } = write(r);
    requireAnyAccount(a);
    return { type: 'write', info: { offset, bytes, account: k(a, 0) } };
  }
  if (tag !== 1) fail();
  requireAnyAccount(a);
  checkAccounts(a, 2);
  return { type: 'finalize', info: { account: k(a, 0) } };
}

/** An optional trailing account: present (its key) or JSON null. */
const optional = (a: readonly string[], i: number) => a[i] ?? null;

export function parseBpfUpgradeableLoader(a: readonly string[], data: Uint8Array): Parsed {
  const r = new Reader(data);
  const tag = r.u32();
  switch (tag) {
    case 0: {
      requireAnyAccount(a);
      const info: Info = { account: k(a, 0) };
      if (a.length > 1) info.authority = a[1];
      return { type: 'initializeBuffer', info };
    }
    case 1: {
      const { offset, bytes } = write(r);
      requireAnyAccount(a);
      checkAccounts(a, 2);
      return { type: 'write', info: { offset, bytes, account: k(a, 0), authority: k(a, 1) } };
    }
    case 2: {
      const maxDataLen = int(r.u64());
      requireAnyAccount(a);
      checkAccounts(a, 8);
      const info = {
        maxDataLen,
        payerAccount: k(a, 0),
        programDataAccount: k(a, 1),
        programAccount: k(a, 2),
        bufferAccount: k(a, 3),
        rentSysvar: k(a, 4),
        clockSysvar: k(a, 5),
        systemProgram: k(a, 6),
        authority: k(a, 7),
      };
      return { type: 'deployWithMaxDataLen', info };
    }
    case 3: {
      requireAnyAccount(a);
      checkAccounts(a, 7);
      const info = {
        programDataAccount: k(a, 0),
        programAccount: k(a, 1),
        bufferAccount: k(a, 2),
        spillAccount: k(a, 3),
        rentSysvar: k(a, 4),
        clockSysvar: k(a, 5),
        authority: k(a, 6),
      };
      return { type: 'upgrade', info };
    }
    case 4:
      requireAnyAccount(a);
      checkAccounts(a, 2);
      return { type: 'setAuthority', info: { account: k(a, 0), authority: k(a, 1), newAuthority: optional(a, 2) } };
    case 5: {
      requireAnyAccount(a);
      checkAccounts(a, 3);
      const info = { account: k(a, 0), recipient: k(a, 1), authority: k(a, 2), programAccount: optional(a, 3) };
      return { type: 'close', info };
    }
    case 6: {
      const additionalBytes = r.u32();
      requireAnyAccount(a);
      checkAccounts(a, 2);
      const info = {
        additionalBytes,
        programDataAccount: k(a, 0),
        programAccount: k(a, 1),
        systemProgram: optional(a, 2),
        payerAccount: optional(a, 3),
      };
      return { type: 'extendProgram', info };
    }
    case 7:
      requireAnyAccount(a);
      checkAccounts(a, 3);
      return { type: 'setAuthorityChecked', info: { account: k(a, 0), authority: k(a, 1), newAuthority: k(a, 2) } };
    default:
      return fail();
  }
}
