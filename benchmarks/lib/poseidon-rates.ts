// Run by the zk scenario in a child process per implementation (the environment picks it:
// ZKGATE_POSEIDON=wasm, ZKGATE_NATIVE_SIMD=0): µs per hash of 2 and 4 inputs, one call per hash
// and in batches of 1,000 (a Merkle level, a run's self-checks). Prints one JSON line.
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, poseidon, poseidonImpl, poseidonMany } from '../../src/zk/poseidon.js';

await loadPoseidon();
const addon = loadNativeAddon();
const out: Record<string, number | string> = {
  impl: poseidonImpl() ?? '?',
  arithmetic: poseidonImpl() === 'native' && addon.ok ? addon.addon.arithmetic() : '-',
};
for (const arity of [2, 4]) {
  const groups = Array.from({ length: 1000 }, (_, i) =>
    Array.from({ length: arity }, (_, j) => BigInt(i) * 7919n + BigInt(j) * 104729n + 3n),
  );
  const time = (f: () => void, hashes: number) => {
    f(); // warm
    const t = performance.now();
    let n = 0;
    while (performance.now() - t < 400) {
      f();
      n += hashes;
    }
    return ((performance.now() - t) * 1000) / n;
  };
  out[`one${arity}`] = time(() => groups.slice(0, 100).forEach((g) => poseidon(g)), 100);
  out[`many${arity}`] = time(() => poseidonMany(groups), 1000);
}
console.log(JSON.stringify(out));
