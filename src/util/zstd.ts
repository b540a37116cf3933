// zstd compression for the `base64+zstd` account encoding: zstd's own C library compiled to WASM
// (no native build at install), loaded once when this module is first imported.
import { Zstd } from '@hpcc-js/wasm-zstd';

const zstd = await Zstd.load();

/** A zstd frame of `data` at the library's default level, as Agave's encoder writes it. */
export const zstdCompress = (data: Uint8Array): Uint8Array => zstd.compress(data);
