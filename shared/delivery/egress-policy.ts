import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';

/**
 * Where webhooks may go. Live mode posts to public addresses only: never loopback, private, link-local
 * (169.254.169.254, the cloud metadata service), unique-local, site-local, carrier-grade NAT, multicast or
 * reserved ranges, nor an IPv6 form that carries or translates to one of them. Test mode allows them when `allowPrivateInTestMode` (WEBHOOK_ALLOW_PRIVATE_TARGETS) is set, so a
 * receiver on the developer's machine keeps working locally.
 */
export interface EgressPolicy {
  allowPrivateInTestMode: boolean;
}

export const refusesPrivateTargets = (policy: EgressPolicy, livemode: boolean): boolean => livemode || !policy.allowPrivateInTestMode;

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, but still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  // Teredo: an IPv4 client behind a relay, reachable anywhere (its address is obfuscated in the last 32 bits).
  ['2001::', 32],
  // NAT64, the well-known prefix and the local-use one (RFC 8215): a translator's view of any IPv4 address.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number): string => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 form carries, where reaching the IPv6 address reaches that IPv4 one: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated but still parsed by stacks), SIIT-translated
 * (`::ffff:0:a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`). Undefined for any other address.
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zero(0, 5) && (groups[5] === 0 || groups[5] === 0xffff)) return ipv4Of(groups[6]!, groups[7]!);
  if (zero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return ipv4Of(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return ipv4Of(groups[1]!, groups[2]!);
  return undefined;
}

/**
 * True for an address in a range a live-mode webhook may not reach. An IPv6 form that carries an IPv4
 * address (mapped, compatible, translated, 6to4) is judged as that IPv4 address; NAT64 and Teredo, which
 * reach arbitrary IPv4 addresses through a translator or relay, are refused whole.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return blocked.check(bare, 'ipv4');
  const ipv4 = embeddedIpv4(ipv6Groups(bare));
  if (ipv4 !== undefined && blocked.check(ipv4, 'ipv4')) return true;
  return blocked.check(bare, 'ipv6');
}

const localNames = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$/i;

/** Why a URL's host is refused without looking it up (an address literal or a loopback name), else undefined. */
export function privateHostReason(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (localNames.test(bare)) return `${bare} is a loopback name`;
  if (isIP(bare) !== 0 && isPrivateAddress(bare)) return `${bare} is a private, loopback or link-local address`;
  return undefined;
}

/**
 * At registration: refuses a host that is, or resolves to, a private address. A name that does not
 * resolve now is accepted (it may exist later, or only where the service runs); delivery checks again on
 * the address it actually connects to, so a DNS answer that changes later cannot get around this.
 */
export async function privateTargetReason(url: URL, resolveTimeoutMs = 2_000): Promise<string | undefined> {
  const direct = privateHostReason(url.hostname);
  if (direct || isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) return direct;
  let addresses: LookupAddress[];
  try {
    addresses = await Promise.race([
      dns.lookup(url.hostname, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), resolveTimeoutMs).unref()),
    ]);
  } catch {
    return undefined;
  }
  const found = addresses.find((entry) => isPrivateAddress(entry.address));
  return found ? `${url.hostname} resolves to ${found.address}, a private, loopback or link-local address` : undefined;
}

/** The error a refused connection fails with (its code names it in the delivery's attempt record). */
export class PrivateTargetError extends Error {
  readonly code = 'EPRIVATETARGET';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http that refuses to connect to a private address: the check runs on the addresses
 * the connection will use, at connect time.
 */
export function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const found = addresses.find((entry) => isPrivateAddress(entry.address));
    if (found) return callback(new PrivateTargetError(`${hostname} resolves to ${found.address}, a private address`), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
