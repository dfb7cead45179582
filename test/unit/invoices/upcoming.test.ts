import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { inLegacyNames, previewParamsOfUpcoming, upcomingInvoiceParams } from '#shared/invoices/upcoming.ts';

describe('the legacy upcoming invoice’s parameters (GET /v1/invoices/upcoming)', () => {
  it('Given flat subscription_* parameters, when read, then they are create_preview’s subscription_details under their new names', () => {
    const params = upcomingInvoiceParams.parse({
      customer: 'cus_1',
      subscription: 'sub_1',
      subscription_items: [
        { id: 'si_1', quantity: '3' },
        { id: 'si_2', deleted: 'true' },
      ],
      subscription_proration_behavior: 'always_invoice',
      subscription_proration_date: '1700000000',
      subscription_cancel_at_period_end: 'false',
      subscription_billing_cycle_anchor: 'unchanged',
    });
    expect(previewParamsOfUpcoming(params)).toEqual({
      customer: 'cus_1',
      currency: undefined,
      subscription: 'sub_1',
      expand: undefined,
      subscription_details: {
        items: [
          { id: 'si_1', quantity: 3 },
          { id: 'si_2', deleted: true },
        ],
        proration_behavior: 'always_invoice',
        proration_date: 1_700_000_000,
        cancel_at_period_end: false,
        billing_cycle_anchor: 'unchanged',
      },
    });
  });

  it('Given no subscription_* parameter, when read, then there are no subscription_details (the plain preview)', () => {
    expect(previewParamsOfUpcoming(upcomingInvoiceParams.parse({ subscription: 'sub_1' }))).not.toHaveProperty('subscription_details');
  });

  it('Given the new form’s subscription_details or an unknown parameter, when parsed, then the strict schema refuses it', () => {
    expect(upcomingInvoiceParams.safeParse({ subscription_details: { cancel_at_period_end: 'true' } }).success).toBe(false);
    expect(upcomingInvoiceParams.safeParse({ subscription_items: [{ id: 'si_1', tax_rates: ['txr_1'] }] }).success).toBe(false);
  });

  it('Given an error naming a subscription_details parameter, when renamed, then it names the legacy parameter, message included; other errors pass unchanged', () => {
    const renamed = inLegacyNames(
      new InvalidRequestError('No such item at subscription_details[items][0][id].', 'resource_missing', 'subscription_details[items][0][id]'),
    );
    expect(renamed).toMatchObject({ param: 'subscription_items[0][id]', code: 'resource_missing', message: 'No such item at subscription_items[0][id].' });
    expect(inLegacyNames(new InvalidRequestError('x', 'parameter_invalid', 'subscription_details[proration_date]'))).toMatchObject({
      param: 'subscription_proration_date',
    });
    const other = new InvalidRequestError('No such subscription', 'resource_missing', 'subscription');
    expect(inLegacyNames(other)).toBe(other);
    const plain = new Error('boom');
    expect(inLegacyNames(plain)).toBe(plain);
  });
});
