import { startKeyBuild } from '../src/zk/setup/key-build-process.js';
import { processTree } from '../src/util/thread-priority.js';
import { getPriority } from 'node:os';
import { readFileSync, mkdtempSync, symlinkSync } from 'node:fs';
const dir = mkdtempSync('/tmp/zkn-');
symlinkSync('/work/main/node_modules/.cache/zkgate-test/circuits', dir + '/circuits');
const b = startKeyBuild({ dataDir: dir, seed: 'zkgate-insecure-dev-seed', shape: 'v1_inclusion_26_1', nice: 19 });
const seen = new Map<string, number>();
const t = setInterval(() => {
  for (const pid of processTree(b.pid!).pids.slice(1)) {
    let cmd = ''; try { cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 80); } catch {}
    for (const tid of processTree(pid).tids) { try { const n = getPriority(tid); const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`,'utf8').trim(); const k = `${n} ${pid} ${comm} ${cmd}`; if (!seen.has(k)) { seen.set(k, 1); if (n !== 19) console.log(k); } } catch {} }
  }
}, 2);
await b.done;
clearInterval(t);
console.log('done', seen.size);
