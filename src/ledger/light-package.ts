// Which Light package a data dir's ledger was made with. Genesis accounts are written on first
// start only, while programs load at every start, so a ledger opened with another release's
// programs would run them over the first release's accounts. The package's accounts are
// recorded on first start and a start with others is refused.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../util/atomic-file.js';
import { FixtureError } from './fixtures.js';
import { genesisAccountsDir } from './light-accounts.js';

const RECORD = 'light-package.json';

/** Records `accountsDir` as the data dir's genesis, or throws FixtureError when it was made with others. */
export function checkLightPackage(dataDir: string, ledgerDir: string, accountsDir: string): void {
  // Names and sizes tell releases apart without reading 16 MB at every start.
  const hash = createHash('sha256');
  for (const f of readdirSync(accountsDir).sort()) hash.update(`${f} ${statSync(join(accountsDir, f)).size}\n`);
  const accounts = hash.digest('hex');
  const record = join(dataDir, RECORD);
  const refuse = (was: string): never => {
    throw new FixtureError(
      `this data dir's ledger was made with Light's genesis accounts of ${was}, and this start loads ${accountsDir}: use another --data-dir`,
    );
  };
  if (existsSync(record)) {
    let was: { accountsDir?: string; accountsSha256?: string };
    try {
      was = JSON.parse(readFileSync(record, 'utf8')) as typeof was;
    } catch (e) {
      throw new FixtureError(`${record} is not readable (${(e as Error).message}): remove it to record this start's`);
    }
    if (was.accountsSha256 !== accounts) refuse(was.accountsDir ?? '(unknown)');
    return;
  }
  // A ledger made before the record was kept was made with the installed package.
  if (existsSync(ledgerDir) && accountsDir !== genesisAccountsDir()) refuse('the installed Light package');
  writeFileAtomicSync(record, JSON.stringify({ accountsDir, accountsSha256: accounts }, null, 1) + '\n');
}
