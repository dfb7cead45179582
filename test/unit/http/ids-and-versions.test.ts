import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { defaultServiceVersion, requestedServiceVersion } from '#shared/wire/api-version.ts';
import { idTime, newId, randomBase62 } from '#shared/core/ids.ts';

describe('ids', () => {
  it('sort by creation time and carry it', () => {
    const earlier = newId('we', 1_700_000_000_000);
    const later = newId('we', 1_700_000_000_001);
    const sameMillisecond = newId('we', 1_700_000_000_001);
    expect(earlier < later && later < sameMillisecond).toBe(true);
    expect(idTime(later)).toBe(1_700_000_000_001);
    expect(earlier).toMatch(/^we_1[0-9A-Za-z]{24}$/);
  });

  it('draw random base62 characters evenly, across many refills of the random pool', () => {
    // 2,000 tokens of 48 characters take about 100 KiB of random bytes: some 25 refills of the 4 KiB pool
    const tokens = Array.from({ length: 2000 }, () => randomBase62(48));
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) expect(token).toMatch(/^[0-9A-Za-z]{48}$/);
    const counts = new Map<string, number>();
    for (const character of tokens.join('')) counts.set(character, (counts.get(character) ?? 0) + 1);
    // 96,000 characters over 62: about 1,548 each; a biased draw (no rejection above 248) would give the first
    // eight characters about 1,875 and the rest about 1,500
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - 96_000 / 62)).toBeLessThan(250);
  });
});

describe('Service-Version', () => {
  it("accepts the reference's dated versions, defaulting when absent", () => {
    expect(requestedServiceVersion(undefined)).toBe(defaultServiceVersion);
    expect(requestedServiceVersion('')).toBe(defaultServiceVersion);
    for (const known of ['2026-09-30.endive', '2025-03-01.dashboard', '2022-11-15', '2020-08-27', '2011-01-01']) {
      expect(requestedServiceVersion(known)).toBe(known);
    }
  });

  it('refuses malformed, impossible and well-formed but unknown versions as the reference does', () => {
    const unknown = [
      'latest',
      '2026-13-01.x',
      '2026-02-30.x',
      '2026-10-28.',
      '2099-01-01.future',
      '2025-09-30.acacia',
      '2025-03-31',
      '2022-11-16',
      '2025-06-30.preview',
    ];
    for (const bad of unknown) {
      expect(() => requestedServiceVersion(bad), bad).toThrow(new InvalidRequestError(`Invalid Service API version: ${bad}`, 'invalid_service_version'));
    }
    expect(() => requestedServiceVersion('x'.repeat(3000))).toThrow(`Invalid Service API version: ${'x'.repeat(64)}…`);
  });
});
