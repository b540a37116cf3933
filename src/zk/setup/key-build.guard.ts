// The process a gateway starts for a key build (key-build-process.ts): it runs the build in a child
// (key-build.child.ts) at the build's nice value, and is never stopped or lowered itself. The
// gateway stops and continues the build's processes directly while client proofs run; when the
// gateway goes away (killed: its IPC channel closes), the guard kills the build however it is,
// stopped or not, compiler included, so that no build outlives its gateway.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processTree } from '../../util/thread-priority.js';
import type { KeyBuildMessage, KeyBuildTask } from './key-build-process.js';

const task = JSON.parse(process.argv[2] ?? '{}') as KeyBuildTask;
/** coreutils' nice: the build starts at its nice value, its first threads too (else it sets them itself). */
const NICE = ['/usr/bin/nice', '/bin/nice'].find((p) => existsSync(p));
const node = [process.execPath, fileURLToPath(new URL('./key-build.child.js', import.meta.url)), process.argv[2]!];
const [command, ...args] = NICE ? [NICE, '-n', String(task.nice), ...node] : node;
const build = spawn(command!, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });

build.on('message', (m: KeyBuildMessage) => process.send?.(m));
build.on('exit', (code, sig) => {
  process.exitCode = code ?? (sig ? 1 : 0);
  process.disconnect?.();
});
const end = () => {
  for (const pid of build.pid === undefined ? [] : processTree(build.pid).pids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  process.exit(1);
};
process.on('disconnect', () => {
  if (build.exitCode === null && build.signalCode === null) end();
});
process.on('SIGTERM', end);
