// Light's 0.27.0 CLI package (its gnark prover binary, proving-key files, programs and genesis
// accounts), fetched once from the npm registry with `npm pack` into node_modules/.cache (never
// committed; 151 MB, about 6 s), under a lock so that parallel test files share one download.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../../src/util/file-lock.js';
import { ROOT } from './paths.js';

export const LIGHT_CLI_VERSION = '0.27.0';
const DIR = join(ROOT, 'node_modules/.cache', `light-cli-${LIGHT_CLI_VERSION}`);

export interface LightPackage {
  /** The package: its bin/ and accounts/ (what --light-package reads). */
  root: string;
  /** bin/ of the package: prover-linux-x64, proving-keys/, the programs (.so). */
  bin: string;
  keys: string;
  prover: string;
}

export async function lightPackage(): Promise<LightPackage> {
  const root = join(DIR, 'package');
  const bin = join(root, 'bin');
  // .complete-2: bin/ and accounts/ (a cache from before holds bin/ alone).
  const done = join(DIR, '.complete-2');
  const result = { root, bin, keys: join(bin, 'proving-keys'), prover: join(bin, 'prover-linux-x64') };
  if (existsSync(done)) return result;
  mkdirSync(DIR, { recursive: true });
  await withFileLock(join(DIR, '.lock'), async () => {
    if (existsSync(done)) return;
    rmSync(join(DIR, 'package'), { recursive: true, force: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['pack', `@lightprotocol/zk-compression-cli@${LIGHT_CLI_VERSION}`, '--silent'], {
      cwd: DIR,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tgz = readdirSync(DIR).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack left no tarball in ${DIR}`);
    execFileSync('tar', ['xzf', tgz, 'package/bin', 'package/accounts'], { cwd: DIR });
    rmSync(join(DIR, tgz));
    chmodSync(result.prover, 0o755);
    writeFileSync(done, '');
  });
  return result;
}
