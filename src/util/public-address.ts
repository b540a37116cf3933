// Whether an IP address is one a server may fetch from on a caller's behalf: not loopback, private,
// link-local, shared (CGNAT), multicast, unspecified, broadcast, documentation or reserved space,
// in IPv4, IPv6, and every IPv6 form that carries an IPv4 address (mapped, translated, compatible,
// NAT64 well-known and local-use, 6to4, Teredo), each judged by the IPv4 it carries. What an
// attacker-chosen URL must not reach (server-side request forgery): this machine, its network, its
// cloud's metadata service.
import { isIP } from 'node:net';

// [first address as a number, prefix length]
const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network", unspecified
  [0x0a000000, 8], // 10/8 private
  [0x64400000, 10], // 100.64/10 shared (CGNAT)
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local (cloud metadata)
  [0xac100000, 12], // 172.16/12 private
  [0xc0000000, 24], // 192.0.0/24 protocol assignments
  [0xc0000200, 24], // 192.0.2/24 documentation
  [0xc0a80000, 16], // 192.168/16 private
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 documentation
  [0xcb007100, 24], // 203.0.113/24 documentation
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, and the broadcast address
];

function v4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function publicV4(n: number): boolean {
  return !V4_BLOCKED.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail converted). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    text = text.slice(0, dotted.index) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const a = parse(head);
  const b = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - a.length - b.length).fill(0);
  return [...a, ...fill, ...b];
}

function publicV6(ip: string): boolean {
  const g = v6Groups(ip);
  if (g.length !== 8 || g.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff)) return false;
  const embeddedV4 = g[6]! * 0x10000 + g[7]!;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return false; // :: unspecified
  if (zeros(7) && g[7] === 1) return false; // ::1 loopback
  if (zeros(5) && g[5] === 0xffff) return publicV4(embeddedV4); // ::ffff:a.b.c.d mapped
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return publicV4(embeddedV4); // ::ffff:0:a.b.c.d translated (SIIT)
  if (zeros(6)) return publicV4(embeddedV4); // ::a.b.c.d compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return publicV4(embeddedV4); // NAT64
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // 64:ff9b:1::/48, NAT64 for local use (RFC 8215), with a prefix of /48 to /96: the IPv4
    // address is where RFC 6052 puts it for /48 (around the reserved octet) or at the end (/96);
    // public only if both readings are.
    const at48 = g[3]! * 0x10000 + (g[4]! & 0xff) * 0x100 + (g[5]! >>> 8);
    return publicV4(at48) && publicV4(embeddedV4);
  }
  if (g[0] === 0x2002) return publicV4(g[1]! * 0x10000 + g[2]!); // 2002::/16 6to4: the IPv4 after the prefix
  if (g[0] === 0x2001 && g[1] === 0) {
    // 2001::/32 Teredo: the server's IPv4, and the client's (its bits inverted) at the end.
    const server = g[2]! * 0x10000 + g[3]!;
    return publicV4(server) && publicV4((~embeddedV4 >>> 0) & 0xffffffff);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return false; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return false; // fe80::/10 link-local
  if ((g[0]! & 0xffc0) === 0xfec0) return false; // fec0::/10 site-local (deprecated)
  if ((g[0]! & 0xff00) === 0xff00) return false; // ff00::/8 multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // 2001:db8::/32 documentation
  if (g[0] === 0x0100 && zeros(4)) return false; // 100::/64 discard
  return true;
}

/** Whether `ip` (an IPv4 or IPv6 literal) is a public unicast address; anything else is not. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip.replace(/^\[|\]$/g, ''));
  if (family === 4) return publicV4(v4Number(ip));
  if (family === 6) return publicV6(ip.replace(/^\[|\]$/g, ''));
  return false;
}
