import * as z from 'zod';
import { createSubscriptionParams, updateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { booleanParam, currencyParam, emptyable, expandParam, idParam, unixTimeParam } from '#shared/wire/params.ts';

/**
 * `POST /v1/invoices/create_preview` (and the legacy upcoming routes): apart from schemas.ts because it takes
 * the subscription parameters, which no other invoice function needs to bundle or build.
 */
export const createPreviewParams = z.strictObject({
  customer: idParam().optional().describe('The identifier of the customer whose upcoming invoice is previewed.'),
  currency: currencyParam().optional().describe('The currency to preview this invoice in.'),
  subscription: idParam().optional().describe('The identifier of the subscription whose next invoice (its renewal, or its trial end) is previewed.'),
  subscription_details: z
    .strictObject({
      items: updateSubscriptionParams.shape.items.describe(
        'A list of up to 20 subscription items: with `subscription`, new ones, changes of existing ones (`id`) and removals (`id` with `deleted`); without it, the items of a new subscription.',
      ),
      proration_behavior: updateSubscriptionParams.shape.proration_behavior,
      proration_date: unixTimeParam()
        .optional()
        .describe(
          'Forces the prorations to be calculated as though the update was done at this time; it must fall within the current period of the subscription, and cannot be used with `proration_behavior=none`.',
        ),
      billing_cycle_anchor: z
        .enum(['now', 'unchanged'])
        .optional()
        .describe('For an existing subscription, `unchanged` (resetting the cycle with `now` is not supported here); for a new one, `now`.'),
      cancel_at_period_end: booleanParam().optional().describe('Preview the subscription cancelling at the end of its current period.'),
      cancel_at: emptyable(unixTimeParam()).optional().describe('Preview the subscription cancelling at this time (an empty string clears it).'),
      trial_end: createSubscriptionParams.shape.trial_end.describe('For a new subscription, the end of its trial (Unix seconds), or `now` for none.'),
    })
    .optional()
    .describe('The subscription creation or modification to preview (nothing is stored). Cannot be used with `schedule`.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export type CreatePreviewParams = z.output<typeof createPreviewParams>;
