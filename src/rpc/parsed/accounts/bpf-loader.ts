// BPF upgradeable loader accounts (bincode UpgradeableLoaderState). Buffer and ProgramData carry
// the program bytes after their metadata; Agave shows them as a base64 UiAccountData pair.
import { u64 } from '../../../wire/index.js';
import { DecodeError, Reader } from './reader.js';

const base64Data = (bytes: Uint8Array): [string, string] => [Buffer.from(bytes).toString('base64'), 'base64'];

export function parseBpfUpgradeableLoader(data: Uint8Array): unknown {
  const r = new Reader(data);
  const tag = r.u32();
  switch (tag) {
    case 0:
      return { type: 'uninitialized' };
    case 1: {
      const authority = r.option(() => r.pubkey());
      // The program bytes start where the (possibly shorter, authority-less) metadata ends.
      return { type: 'buffer', info: { authority, data: base64Data(data.subarray(r.offset)) } };
    }
    case 2:
      return { type: 'program', info: { programData: r.pubkey() } };
    case 3: {
      const slot = r.u64();
      const authority = r.option(() => r.pubkey());
      return { type: 'programData', info: { slot: u64(slot), authority, data: base64Data(data.subarray(r.offset)) } };
    }
    default:
      throw new DecodeError('unknown upgradeable loader state');
  }
}
