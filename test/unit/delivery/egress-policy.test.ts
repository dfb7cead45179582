import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, privateHostReason, privateTargetReason, refusesPrivateTargets } from '#shared/delivery/egress-policy.ts';

describe('the webhook egress policy', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    'ff02::1',
    // IPv6 forms that carry or translate to a private IPv4 address, and site-local
    '[::7f00:1]',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '[::ffff:0:7f00:1]',
    '::ffff:0:169.254.169.254',
    '[2002:a9fe:a9fe::]',
    '2002:7f00:1::1',
    '2002:0a00:0001:1::',
    '[64:ff9b:1::a9fe:a9fe]',
    '64:ff9b::8.8.8.8',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    'fec0::1',
    'FEC0:0:0:1::1',
    'feff::1',
  ])('treats %s as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '::ffff:0:8.8.8.8',
    '2a00:1450:4001:81b::200e',
  ])('treats %s as public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('judges every IPv6 form that carries an IPv4 address as that IPv4 address', () => {
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    fc.assert(
      fc.property(fc.ipV4(), (ipv4) => {
        const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
        const forms = [`::ffff:${ipv4}`, `::ffff:0:${ipv4}`, `::${hex(a, b)}:${hex(c, d)}`, `2002:${hex(a, b)}:${hex(c, d)}::1`];
        for (const form of forms) expect([form, isPrivateAddress(form)]).toEqual([form, isPrivateAddress(ipv4)]);
      }),
    );
  });

  it('refuses loopback names and private literals without a lookup', () => {
    expect(privateHostReason('localhost')).toMatch(/loopback/);
    expect(privateHostReason('api.localhost')).toMatch(/loopback/);
    expect(privateHostReason('[::1]')).toMatch(/private/);
    expect(privateHostReason('169.254.169.254')).toMatch(/private/);
    expect(privateHostReason('example.com')).toBeUndefined();
  });

  it('checks at registration what a name resolves to; a name that does not resolve is left to delivery', async () => {
    expect(await privateTargetReason(new URL('https://localhost/x'))).toMatch(/loopback/);
    expect(await privateTargetReason(new URL('https://does-not-exist.invalid/x'))).toBeUndefined();
    expect(await privateTargetReason(new URL('https://93.184.216.34/x'))).toBeUndefined();
  });

  it('applies in live mode always, in test mode only when private targets are off', () => {
    expect(refusesPrivateTargets({ allowPrivateInTestMode: true }, true)).toBe(true);
    expect(refusesPrivateTargets({ allowPrivateInTestMode: true }, false)).toBe(false);
    expect(refusesPrivateTargets({ allowPrivateInTestMode: false }, false)).toBe(true);
  });
});
