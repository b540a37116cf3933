// Child process of the large-write crash test: inserts batches of deterministic addresses with
// StateSync's chunked writes forever, printing each finished write and each chunk committed,
// until the parent kills it.
import { TreeStore } from '../../src/state/index.js';

const [dir, batch] = [process.argv[2]!, Number(process.argv[3])];
const store = await TreeStore.open(dir);
if (!store.has('addr')) store.registerTree({ pubkey: 'addr', kind: 'address', version: 1 });
for (let b = 0; ; b++) {
  const n = store.info('addr').nextIndex;
  await store.exclusive(() =>
    store.write(
      { op: 'insert', tree: 'addr', addresses: Array.from({ length: batch }, (_, i) => address(n + i)) },
      (done) => process.stdout.write(`chunk ${b} ${done}\n`),
    ),
  );
  process.stdout.write(`committed ${b}\n`);
}

function address(i: number): bigint {
  return BigInt(i) * 7919n + 3n;
}
