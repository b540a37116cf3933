// The index-database tests run a real Postgres (Debian's postgresql: initdb and pg_ctl). npm test
// installs it where it is missing and this process may (root, with apt-get), as the README's two
// commands promise; else it says what to install. Each test starts and stops a private server in
// a temporary directory on a free port (test/helpers/postgres.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { ensureDebianPackage } from './ensure-redis.mjs';

/** The directory holding initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBin() {
  if (spawnSync('initdb', ['--version'], { stdio: 'ignore' }).status === 0) return '';
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(`${base}/${v}/bin/initdb`))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? `${base}/${versions[0]}/bin/` : undefined;
}

export function ensurePostgres() {
  ensureDebianPackage('postgresql', () => postgresBin() !== undefined, 'the index-db tests');
}
