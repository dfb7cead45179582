import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/errors.ts';
import { defaultServiceVersion, requestedServiceVersion } from '#shared/http/api-version.ts';
import { idTime, newId } from '#shared/ids.ts';

describe('ids', () => {
  it('sort by creation time and carry it', () => {
    const earlier = newId('we', 1_700_000_000_000);
    const later = newId('we', 1_700_000_000_001);
    const sameMillisecond = newId('we', 1_700_000_000_001);
    expect(earlier < later && later < sameMillisecond).toBe(true);
    expect(idTime(later)).toBe(1_700_000_000_001);
    expect(earlier).toMatch(/^we_1[0-9A-Za-z]{24}$/);
  });
});

describe('Service-Version', () => {
  it('accepts <date>.<release_name> and plain dates, defaulting when absent', () => {
    expect(requestedServiceVersion(undefined)).toBe(defaultServiceVersion);
    expect(requestedServiceVersion('2026-09-30.endive')).toBe('2026-09-30.endive');
    expect(requestedServiceVersion('2020-08-27')).toBe('2020-08-27');
  });

  it('refuses malformed or impossible versions', () => {
    for (const bad of ['latest', '2026-13-01.x', '2026-02-30.x', '2026-10-28.', '2099-01-01.future']) {
      expect(() => requestedServiceVersion(bad), bad).toThrow(InvalidRequestError);
    }
  });
});
