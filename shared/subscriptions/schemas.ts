import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import { currencyParam, recurringParam, unitAmountDecimalParam } from '#shared/catalogue/schemas.ts';
import { booleanParam, emptyable, expandParam, idParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

const prorationDiscounts = z.enum(['included', 'itemized']);

const item = z.strictObject({
  price: idParam().optional(),
  price_data: z
    .strictObject({
      currency: currencyParam(),
      product: idParam(),
      recurring: recurringParam(),
      tax_behavior: z.enum(['exclusive', 'inclusive', 'unspecified']).optional(),
      unit_amount: integerParam(0, 99_999_999).optional(),
      unit_amount_decimal: unitAmountDecimalParam().optional(),
    })
    .optional(),
  quantity: integerParam(0, 1_000_000).optional(),
  metadata: metadataParam().optional(),
});

export const createSubscriptionParams = z.strictObject({
  customer: idParam().optional(),
  items: z.array(item).max(20, 'a subscription can have at most 20 items').optional(),
  billing_mode: z
    .strictObject({ type: z.enum(['classic', 'flexible']), flexible: z.strictObject({ proration_discounts: prorationDiscounts.optional() }).optional() })
    .optional(),
  cancel_at_period_end: booleanParam().optional(),
  collection_method: z.enum(['charge_automatically', 'send_invoice']).optional(),
  days_until_due: integerParam(0, 730).optional(),
  description: stringParam(500).optional(),
  metadata: metadataParam().optional(),
  expand: expandParam('subscription').optional(),
});

export const updateSubscriptionParams = z.strictObject({
  cancel_at_period_end: booleanParam().optional(),
  description: emptyable(stringParam(500)).optional(),
  metadata: metadataParam().optional(),
  expand: expandParam('subscription').optional(),
});

export const cancelSubscriptionParams = z.strictObject({
  cancellation_details: z
    .strictObject({
      comment: emptyable(stringParam(5000)).optional(),
      feedback: emptyable(
        z.enum(['customer_service', 'low_quality', 'missing_features', 'other', 'switched_service', 'too_complex', 'too_expensive', 'unused']),
      ).optional(),
    })
    .optional(),
  invoice_now: booleanParam().optional(),
  prorate: booleanParam().optional(),
  expand: expandParam('subscription').optional(),
});

export const migrateSubscriptionParams = z.strictObject({
  billing_mode: z.strictObject({
    type: z.literal('flexible', 'a subscription can only be migrated to the flexible billing mode'),
    flexible: z.strictObject({ proration_discounts: prorationDiscounts.optional() }).optional(),
  }),
  expand: expandParam('subscription').optional(),
});

export const retrieveSubscriptionParams = z.strictObject({ expand: expandParam('subscription').optional() });

export const listSubscriptionsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('subscription')).optional(),
  customer: idParam().optional(),
  status: z.enum(['active', 'all', 'canceled', 'ended', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid']).optional(),
});

export type CreateSubscriptionParams = z.output<typeof createSubscriptionParams>;
export type UpdateSubscriptionParams = z.output<typeof updateSubscriptionParams>;
export type CancelSubscriptionParams = z.output<typeof cancelSubscriptionParams>;
export type MigrateSubscriptionParams = z.output<typeof migrateSubscriptionParams>;
