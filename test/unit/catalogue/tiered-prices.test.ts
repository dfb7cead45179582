import { describe, expect, it } from 'vitest';
import { createPriceParams, createProductParams, updatePriceParams } from '#shared/catalogue/schemas.ts';
import { serializePlan, serializePrice } from '#shared/catalogue/serializer.ts';
import { catalogueService } from '#shared/catalogue/service.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { fieldWhenExpanded } from '#shared/expansion/resolver.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryCatalogue, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_tiers', livemode: false };

async function setup() {
  const catalogue = memoryCatalogue();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = catalogueService({ catalogue, events: recorded.events, meters: { get: async () => undefined }, clock: () => now++ });
  const product = await service.createProduct(originOf(scope), createProductParams.parse({ name: 'Fonts' }));
  const create = (params: Record<string, unknown>) =>
    service.createPrice(originOf(scope), createPriceParams.parse({ product: product.id, currency: 'usd', recurring: { interval: 'month' }, ...params }));
  return { service, create, written: recorded.written };
}

// Form-encoded, as the SDK sends them: every value a string.
const graduated = {
  billing_scheme: 'tiered',
  tiers_mode: 'graduated',
  tiers: [
    { up_to: '5', unit_amount: '700' },
    { up_to: '10', unit_amount_decimal: '650.5', flat_amount: '100' },
    { up_to: 'inf', unit_amount: '600', flat_amount_decimal: '50' },
  ],
};

describe('tiered prices and transform_quantity (service with the shared fakes)', () => {
  it('Given graduated tiers, when a price is created, then it keeps them exactly with no unit amount, and shows tiers only when expanded', async () => {
    const { create, written } = await setup();
    const price = await create(graduated);
    expect(price).toMatchObject({ billingScheme: 'tiered', tiersMode: 'graduated', unitAmount: null, unitAmountDecimal: null, transformQuantity: null });
    expect(price.tiers).toEqual([
      { upTo: 5, unitAmount: 700, unitAmountDecimal: '700', flatAmount: null, flatAmountDecimal: null },
      { upTo: 10, unitAmount: null, unitAmountDecimal: '650.5', flatAmount: 100, flatAmountDecimal: '100' },
      { upTo: null, unitAmount: 600, unitAmountDecimal: '600', flatAmount: 50, flatAmountDecimal: '50' },
    ]);
    const rendered = serializePrice(price);
    expect(rendered).toMatchObject({
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      unit_amount: null,
      unit_amount_decimal: null,
      transform_quantity: null,
    });
    expect(rendered).not.toHaveProperty('tiers');
    expect(fieldWhenExpanded(rendered, 'tiers')).toEqual([
      { flat_amount: null, flat_amount_decimal: null, unit_amount: 700, unit_amount_decimal: '700', up_to: 5 },
      { flat_amount: 100, flat_amount_decimal: '100', unit_amount: null, unit_amount_decimal: '650.5', up_to: 10 },
      { flat_amount: 50, flat_amount_decimal: '50', unit_amount: 600, unit_amount_decimal: '600', up_to: null },
    ]);
    // Events cannot expand: they carry the tiers.
    const event = written.at(-1)!.snapshotEvents.at(-1)!;
    expect(event).toMatchObject({ type: 'price.created', object: { tiers: expect.any(Array) } });
    expect(serializePlan(price)).toMatchObject({
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      amount: null,
      amount_decimal: null,
      transform_usage: null,
    });
  });

  it('Given transform_quantity on a per_unit price, when created, then it is kept and shown as transform_quantity (transform_usage on the plan)', async () => {
    const { create } = await setup();
    const price = await create({ unit_amount: '1000', transform_quantity: { divide_by: '1000', round: 'up' } });
    expect(price.transformQuantity).toEqual({ divideBy: 1000, round: 'up' });
    expect(serializePrice(price).transform_quantity).toEqual({ divide_by: 1000, round: 'up' });
    expect(serializePlan(price).transform_usage).toEqual({ divide_by: 1000, round: 'up' });
  });

  it('Given tiers that break the reference’s rules, when a price is created, then each is refused naming the parameter', async () => {
    const { create } = await setup();
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ tiers: graduated.tiers, tiers_mode: 'graduated' }, 'tiers', 'requires billing_scheme=tiered'],
      [{ unit_amount: '1', tiers_mode: 'volume' }, 'tiers_mode', 'requires billing_scheme=tiered'],
      [{ billing_scheme: 'tiered', tiers_mode: 'volume' }, 'tiers', 'Missing required param: tiers.'],
      [{ billing_scheme: 'tiered', tiers: graduated.tiers }, 'tiers_mode', 'Missing required param: tiers_mode.'],
      [{ ...graduated, unit_amount: '5' }, 'unit_amount', 'cannot be used with billing_scheme=tiered'],
      [{ ...graduated, unit_amount_decimal: '5' }, 'unit_amount_decimal', 'cannot be used with billing_scheme=tiered'],
      [
        { ...graduated, transform_quantity: { divide_by: '2', round: 'up' } },
        'transform_quantity',
        'You may only specify one of these parameters: tiers, transform_quantity.',
      ],
      [{ ...graduated, tiers: [{ up_to: '5', unit_amount: '1' }] }, 'tiers[0][up_to]', 'The last tier must have up_to=inf'],
      [
        {
          ...graduated,
          tiers: [
            { up_to: 'inf', unit_amount: '1' },
            { up_to: 'inf', unit_amount: '1' },
          ],
        },
        'tiers[0][up_to]',
        'Only the last tier',
      ],
      [
        {
          ...graduated,
          tiers: [
            { up_to: '5', unit_amount: '1' },
            { up_to: '5', unit_amount: '1' },
            { up_to: 'inf', unit_amount: '1' },
          ],
        },
        'tiers[1][up_to]',
        'strictly ascending',
      ],
      [{ ...graduated, tiers: [{ up_to: 'inf' }] }, 'tiers[0]', 'An entry in the tiers array is missing an amount.'],
      [
        { ...graduated, tiers: [{ up_to: 'inf', unit_amount: '1', unit_amount_decimal: '1' }] },
        'tiers[0][unit_amount_decimal]',
        'You may only specify one of these parameters',
      ],
      [
        { ...graduated, tiers: [{ up_to: 'inf', flat_amount: '1', flat_amount_decimal: '1' }] },
        'tiers[0][flat_amount_decimal]',
        'You may only specify one of these parameters',
      ],
      [{ ...graduated, currency_options: { eur: { unit_amount: '1' } } }, 'currency_options[eur][unit_amount]', 'cannot be used with billing_scheme=tiered'],
      [{ ...graduated, currency_options: { eur: {} } }, 'currency_options[eur][tiers]', 'Missing required param'],
      [{ ...graduated, currency_options: { eur: { tiers: [{ up_to: '3', unit_amount: '1' }] } } }, 'currency_options[eur][tiers][0][up_to]', 'The last tier'],
    ];
    for (const [params, param, message] of refused) {
      const error = await create(params).catch((caught: unknown) => caught);
      expect(error, param).toBeInstanceOf(InvalidRequestError);
      expect(error, param).toMatchObject({ param, message: expect.stringContaining(message) });
    }
  });

  it('Given malformed tiers or a transform, when the parameters are parsed, then the schema refuses them', () => {
    const base = { product: 'prod_1', currency: 'usd' };
    for (const bad of [
      { ...base, billing_scheme: 'stairs' },
      { ...base, tiers_mode: 'linear' },
      { ...base, tiers: [{ up_to: 'infinity', unit_amount: '1' }] },
      { ...base, tiers: [{ up_to: '0', unit_amount: '1' }] },
      { ...base, tiers: [{ up_to: 'inf', unit_amount: '-1' }] },
      { ...base, tiers: [{ up_to: 'inf', amount: '1' }] },
      { ...base, tiers: [] },
      { ...base, transform_quantity: { divide_by: '0', round: 'up' } },
      { ...base, transform_quantity: { divide_by: '2', round: 'nearest' } },
    ]) {
      expect(createPriceParams.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('Given a tiered price with currency options, when created and updated, then each option keeps its own tiers and the update takes tiers again', async () => {
    const { service, create } = await setup();
    const price = await create({
      ...graduated,
      currency_options: {
        eur: {
          tiers: [
            { up_to: '5', unit_amount: '600' },
            { up_to: 'inf', unit_amount: '550' },
          ],
        },
      },
    });
    expect(price.currencyOptions.eur).toEqual({
      unitAmount: null,
      unitAmountDecimal: null,
      tiers: [
        { upTo: 5, unitAmount: 600, unitAmountDecimal: '600', flatAmount: null, flatAmountDecimal: null },
        { upTo: null, unitAmount: 550, unitAmountDecimal: '550', flatAmount: null, flatAmountDecimal: null },
      ],
      taxBehavior: 'unspecified',
    });
    const options = fieldWhenExpanded(serializePrice(price), 'currency_options') as Record<string, { tiers?: unknown[]; unit_amount_decimal: string | null }>;
    expect(options.usd!.tiers).toHaveLength(3);
    expect(options.eur).toMatchObject({
      unit_amount_decimal: null,
      tiers: [
        { up_to: 5, unit_amount: 600 },
        { up_to: null, unit_amount: 550 },
      ],
    });

    const updated = await service.updatePrice(
      originOf(scope),
      price.id,
      updatePriceParams.parse({ currency_options: { gbp: { tiers: [{ up_to: 'inf', unit_amount: '500' }] } } }),
    );
    expect(Object.keys(updated.currencyOptions)).toEqual(['gbp']);
    await expect(
      service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ currency_options: { gbp: { unit_amount: '500' } } })),
    ).rejects.toMatchObject({ param: 'currency_options[gbp][unit_amount]' });
    // A per_unit price's options take no tiers.
    const plain = await create({ unit_amount: '100' });
    await expect(
      service.updatePrice(originOf(scope), plain.id, updatePriceParams.parse({ currency_options: { eur: { tiers: [{ up_to: 'inf', unit_amount: '1' }] } } })),
    ).rejects.toMatchObject({ param: 'currency_options[eur][tiers]' });
  });
});
