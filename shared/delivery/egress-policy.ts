import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';

/**
 * Where webhooks may go. Live mode posts to public addresses only: never loopback, private, link-local
 * (169.254.169.254, the cloud metadata service), unique-local, carrier-grade NAT, multicast or reserved
 * ranges. Test mode allows them when `allowPrivateInTestMode` (WEBHOOK_ALLOW_PRIVATE_TARGETS) is set, so a
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
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
  ['100::', 64],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for an address in a range a live-mode webhook may not reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
  if (mapped) {
    const ipv4 = mapped.length === 2 ? mapped[1]! : hexPairToIpv4(mapped[1]!, mapped[2]!);
    return blocked.check(ipv4, 'ipv4');
  }
  return family === 4 ? blocked.check(bare, 'ipv4') : blocked.check(bare, 'ipv6');
}

function hexPairToIpv4(high: string, low: string): string {
  const a = parseInt(high, 16);
  const b = parseInt(low, 16);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
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
