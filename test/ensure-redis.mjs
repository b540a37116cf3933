// The queue's tests run a real Redis server (Debian's redis-server). npm test installs it where it
// is missing and this process may (root, with apt-get), as the README's two commands promise; else
// it says what to install. The tests start and stop their own servers on free ports.
import { spawnSync } from 'node:child_process';

const has = () => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export function ensureRedis() {
  ensureDebianPackage('redis-server', has, 'the queue tests');
}

/** Installs Debian's `pkg` with apt-get where `has()` says it is missing and this process may (root). */
export function ensureDebianPackage(pkg, has, purpose) {
  if (has()) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!root || !apt) {
    console.error(`npm test: ${pkg} is missing: install it (Debian: apt-get install ${pkg}) for ${purpose}`);
    return;
  }
  console.error(`npm test: installing ${pkg} (apt-get) for ${purpose}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'inherit', env });
  if (!has()) console.error(`npm test: ${pkg} could not be installed; ${purpose} will fail`);
}
