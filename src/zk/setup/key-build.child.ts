// A proving key's build in a process of its own (key-build-process.ts starts it): its memory is
// not the gateway's (a build that runs out kills only itself), its priority is set for all of its
// threads and its compiler at once, and it can be stopped at any point. It builds as
// `zkgate keys build` does, under the key store's file locks, so a process sharing the data dir
// that built the key meanwhile is found out, and reports to its parent over the IPC channel.
import { KeyStore } from '../keys.js';
import { shutdownZk } from '../index.js';
import { niceTree } from '../../util/thread-priority.js';
import type { KeyBuildMessage, KeyBuildTask } from './key-build-process.js';

const task = JSON.parse(process.argv[2] ?? '{}') as KeyBuildTask;
// Before any work: the threads Node started already (V8's, libuv's) take the build's priority too.
niceTree(process.pid, task.nice);
const send = (m: KeyBuildMessage) => process.send?.(m);
// The parent is gone (killed): nothing waits for this build; the compiler goes with it (compile.ts).
const orphaned = () => process.exit(1);
process.on('disconnect', orphaned);
process.on('SIGTERM', () => process.exit(143));

try {
  const keys = new KeyStore(task.dataDir, task.seed, 'dev');
  const key = await keys.build(task.shape, (step, done, total) => send({ progress: { step, done, total } }), {
    unlessUsable: true,
  });
  send({ built: { sha256: key.entry.sha256 } });
} catch (e) {
  send({ failed: String((e as Error)?.message ?? e) });
  process.exitCode = 1;
} finally {
  await shutdownZk();
  process.off('disconnect', orphaned);
  process.disconnect?.();
}
