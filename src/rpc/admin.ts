// Who may call the methods that change the dev chain for everyone (cheatcodes, airdrops): the keys
// listed in --admin-keys; without that list, every key on a gateway bound to loopback (a developer's
// own chain, today's openness) and nobody on one bound elsewhere.
import { isLoopback } from '../util/loopback.js';

export type AdminRule = 'keys' | 'open' | 'closed';

export const adminRule = (adminKeys: readonly string[], host: string): AdminRule =>
  adminKeys.length > 0 ? 'keys' : isLoopback(host) ? 'open' : 'closed';

/** Why a caller may not call an admin method, under the gateway's rule. */
export function adminRefusal(method: string, rule: AdminRule): string {
  return rule === 'keys'
    ? `${method} changes the chain for every caller: it needs one of the --admin-keys`
    : `${method} changes the chain for every caller: refused on a gateway bound off loopback without --admin-keys`;
}
