import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createdParam, createdWindow } from '#shared/wire/params.ts';
import { validateParams } from '#shared/http/validation.ts';

const list = z.strictObject({ created: createdParam().optional() });

describe('the v1 created list parameter', () => {
  it('turns a second, as a number or a form string, into that whole second in milliseconds', () => {
    expect(list.parse({ created: 1_700_000_000 })).toEqual({ created: { from: 1_700_000_000_000, to: 1_700_000_000_999 } });
    expect(list.parse({ created: '1700000000' })).toEqual({ created: { from: 1_700_000_000_000, to: 1_700_000_000_999 } });
  });

  it('turns gt, gte, lt and lte bounds in seconds into an inclusive window, keeping the narrower bound of each side', () => {
    expect(createdWindow({ gt: 10, lte: 20 })).toEqual({ from: 11_000, to: 20_999 });
    expect(createdWindow({ gte: 10, lt: 20 })).toEqual({ from: 10_000, to: 19_999 });
    expect(createdWindow({ gte: 10, gt: 15 })).toEqual({ from: 16_000, to: undefined });
    expect(createdWindow({ lt: 5, lte: 3 })).toEqual({ from: undefined, to: 3_999 });
    expect(list.parse({ created: { gte: '10', lt: '20' } })).toEqual({ created: { from: 10_000, to: 19_999 } });
    // An empty window stays empty (from after to): the store then reads nothing.
    expect(createdWindow({ gt: 20, lt: 10 })).toEqual({ from: 21_000, to: 9_999 });
  });

  it('refuses a huge, negative, fractional, textual or unknown bound with a 400 naming it', () => {
    for (const created of ['99999999999999999999', '9'.repeat(3000), '-1', '1.5', 'yesterday', { after: '1' }, { gte: { nested: '1' } }, ['1']]) {
      expect(() => validateParams(list, { created }, 'v1'), JSON.stringify(created).slice(0, 40)).toThrow(
        expect.objectContaining({ param: expect.stringMatching(/^created/) }),
      );
    }
    expect(() => validateParams(list, { created: { gt: '253402300800' } }, 'v1')).toThrow(
      expect.objectContaining({ param: expect.stringMatching(/^created/) }),
    );
  });
});
