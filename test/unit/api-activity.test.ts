import { describe, expect, it } from 'vitest';
import { apiBusy, apiQuietMs } from '#local/api-activity.ts';

describe('API activity as the local queue workers read it', () => {
  const activity = (inFlight: number, lastAt: number) => new Int32Array([inFlight, lastAt % 2 ** 31]);
  const now = 1_795_000_000_000;

  it('is busy while a request is in flight, however long ago one last started or ended', () => {
    expect(apiBusy(activity(1, now - 60_000), now)).toBe(true);
  });

  it('stays busy for a short quiet period after the last request, then is idle', () => {
    expect(apiBusy(activity(0, now - 10), now)).toBe(true);
    expect(apiBusy(activity(0, now - apiQuietMs + 1), now)).toBe(true);
    expect(apiBusy(activity(0, now - apiQuietMs), now)).toBe(false);
    expect(apiBusy(activity(0, now - 60_000), now)).toBe(false);
  });

  it('reads times across the wrap of the 31-bit clock', () => {
    const justAfterWrap = Math.ceil(now / 2 ** 31) * 2 ** 31 + 5;
    expect(apiBusy(activity(0, justAfterWrap - 20), justAfterWrap)).toBe(true);
    expect(apiBusy(activity(0, justAfterWrap - 1_000), justAfterWrap)).toBe(false);
  });
});
