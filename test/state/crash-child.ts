// Child process of the crash test: ingests batches of deterministic leaves and addresses forever,
// printing each committed batch, until the parent kills it with SIGKILL.
import { TreeStore } from '../../src/state/index.js';

const [dir, batch] = [process.argv[2]!, Number(process.argv[3])];
const store = await TreeStore.open(dir);
if (store.listTrees().length === 0) {
  store.registerTree({ pubkey: 'state', kind: 'state', version: 1 });
  store.registerTree({ pubkey: 'addr', kind: 'address', version: 2 });
}
const st = store.stateTree('state');
const ad = store.addressTree('addr');
for (let b = 0; ; b++) {
  const first = st.info().nextIndex;
  st.append(Array.from({ length: batch }, (_, i) => BigInt(first + i + 1)));
  const n = ad.info().nextIndex;
  ad.insert(Array.from({ length: batch / 10 }, (_, i) => BigInt(n + i) * 7919n + 3n));
  process.stdout.write(`committed ${b}\n`);
}
