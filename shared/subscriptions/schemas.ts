import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import { recurringParam, unitAmountDecimalParam } from '#shared/catalogue/schemas.ts';
import { currencyParam } from '#shared/wire/params.ts';
import {
  booleanParam,
  createdParam,
  emptyable,
  expandParam,
  idParam,
  integerParam,
  metadataParam,
  stringParam,
  unixTimeParam,
  v1ListParams,
} from '#shared/wire/params.ts';

const prorationDiscounts = z.enum(['included', 'itemized']);

/** `trial_end`: a Unix time, or `now` to end a trial at once. */
const trialEnd = () =>
  z.union([z.literal('now'), unixTimeParam()]).describe('Unix timestamp representing the end of the trial period, or `now` to end a trial immediately.');

const trialSettings = () =>
  z
    .strictObject({
      end_behavior: z
        .strictObject({
          missing_payment_method: z
            .enum(['cancel', 'create_invoice', 'pause'])
            .describe('Indicates how the subscription should change when the trial ends if the user did not provide a payment method.'),
        })
        .describe("Defines how the subscription should behave when the user's free trial ends."),
    })
    .describe('Settings related to subscription trials.');

const paymentBehavior = () =>
  z
    .enum(['allow_incomplete', 'default_incomplete', 'error_if_incomplete', 'pending_if_incomplete'])
    .describe(
      'How payments of the invoices a change makes are handled: `allow_incomplete` (the default), `default_incomplete`, `error_if_incomplete`, `pending_if_incomplete` (updates only).',
    );

/** `billing_thresholds` of a subscription: `''` removes them. amount_gte's minimum depends on the currency (checked by the service). */
const billingThresholds = () =>
  emptyable(
    z.strictObject({
      amount_gte: integerParam(1, 99_999_999_999).optional().describe('Monetary threshold that triggers the subscription to advance to a new billing period.'),
      reset_billing_cycle_anchor: booleanParam().optional().describe('Indicates if the `billing_cycle_anchor` should be reset when a threshold is reached.'),
    }),
  )
    .optional()
    .describe(
      'Define thresholds at which an invoice will be sent, and the subscription advanced to a new billing period. Pass an empty string to remove previously-defined thresholds.',
    );

/** `billing_thresholds` of an item (metered prices only): `''` removes them. */
const itemBillingThresholds = () =>
  emptyable(
    z.strictObject({
      usage_gte: integerParam(1, 999_999_999_999).describe(
        'Number of units that meets the billing threshold to advance the subscription to a new billing period.',
      ),
    }),
  )
    .optional()
    .describe(
      'Define thresholds at which an invoice will be sent, and the subscription advanced to a new billing period. Pass an empty string to remove previously-defined thresholds.',
    );

const item = z.strictObject({
  billing_thresholds: itemBillingThresholds(),
  price: idParam().optional().describe('The ID of the price object.'),
  price_data: z
    .strictObject({
      currency: currencyParam().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
      product: idParam().describe('The ID of the Product that this Price will belong to.'),
      recurring: recurringParam().describe('The recurring components of a price such as `interval` and `interval_count`.'),
      tax_behavior: z
        .enum(['exclusive', 'inclusive', 'unspecified'])
        .optional()
        .describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
      unit_amount: integerParam(0, 99_999_999)
        .optional()
        .describe('A positive integer in cents (or local equivalent) (or 0 for a free price) representing how much to charge.'),
      unit_amount_decimal: unitAmountDecimalParam()
        .optional()
        .describe('Same as `unit_amount`, but accepts a decimal value in cents (or local equivalent) with at most 12 decimal places.'),
    })
    .optional()
    .describe('Data used to generate a new Price object inline.'),
  quantity: integerParam(0, 1_000_000).optional().describe('Quantity for this item.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
});

/** How a change of items is prorated (shared/subscriptions/prorations.ts): pending invoice items, none, or invoiced at once. */
const prorationBehavior = z
  .enum(['always_invoice', 'create_prorations', 'none'])
  .optional()
  .describe('Determines how to handle prorations when the billing cycle changes: `create_prorations` (the default), `none` or `always_invoice`.');

const prorationDate = unixTimeParam()
  .optional()
  .describe('If set, the proration will be calculated as though the subscription was updated at the given time (within the current period).');

const itemWrite = {
  billing_thresholds: item.shape.billing_thresholds,
  price: item.shape.price,
  price_data: item.shape.price_data,
  quantity: item.shape.quantity,
  metadata: item.shape.metadata,
  proration_behavior: prorationBehavior,
  proration_date: prorationDate,
  payment_behavior: paymentBehavior().optional(),
};

export const createSubscriptionItemParams = z.strictObject({
  subscription: idParam().describe('The identifier of the subscription to modify.'),
  ...itemWrite,
  expand: expandParam('subscription_item').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateSubscriptionItemParams = z.strictObject({
  ...itemWrite,
  expand: expandParam('subscription_item').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const deleteSubscriptionItemParams = z.strictObject({
  proration_behavior: prorationBehavior,
  proration_date: prorationDate,
});

export const retrieveSubscriptionItemParams = z.strictObject({
  expand: expandParam('subscription_item').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listSubscriptionItemsParams = z.strictObject({
  ...v1ListParams,
  subscription: idParam().describe('The ID of the subscription whose items will be retrieved.'),
  expand: expandParam(listOf('subscription_item')).optional().describe('Specifies which fields in the response should be expanded.'),
});

/** An entry of `items` on a subscription update: a new item (no `id`), a change of one (`id`), or its removal (`id`, `deleted`). */
const itemUpdate = item.extend({
  id: idParam().optional().describe('Subscription item to update.'),
  deleted: booleanParam().optional().describe('A flag that, if set to `true`, will delete the specified item.'),
});

export const createSubscriptionParams = z.strictObject({
  customer: idParam().optional().describe('The identifier of the customer to subscribe.'),
  items: z
    .array(item)
    .max(20, 'a subscription can have at most 20 items')
    .optional()
    .describe('A list of up to 20 subscription items, each with an attached price.'),
  billing_mode: z
    .strictObject({
      type: z.enum(['classic', 'flexible']).describe('Controls the calculation and orchestration of prorations and invoices for subscriptions.'),
      flexible: z
        .strictObject({
          proration_discounts: prorationDiscounts
            .optional()
            .describe('Controls how invoices and invoice items display proration amounts and discount amounts.'),
        })
        .optional()
        .describe('Configure behavior for flexible billing mode.'),
    })
    .optional()
    .describe('Controls how prorations and invoices for subscriptions are calculated and orchestrated.'),
  billing_thresholds: billingThresholds(),
  cancel_at_period_end: booleanParam()
    .optional()
    .describe('Indicate whether this subscription should cancel at the end of the current period (`current_period_end`).'),
  collection_method: z
    .enum(['charge_automatically', 'send_invoice'])
    .optional()
    .describe(
      'Either `charge_automatically`, or `send_invoice`. When charging automatically, the service will attempt to pay this subscription at the end of the cycle using the default source attached to the customer.',
    ),
  days_until_due: integerParam(0, 730).optional().describe('Number of days a customer has to pay invoices generated by this subscription.'),
  description: stringParam(500).optional().describe("The subscription's description, meant to be displayable to the customer."),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  cancel_at: unixTimeParam().optional().describe('A timestamp at which the subscription should cancel.'),
  payment_behavior: paymentBehavior().optional(),
  trial_end: trialEnd().optional(),
  trial_period_days: integerParam(0, 730)
    .optional()
    .describe('Integer representing the number of trial period days before the customer is charged for the first time.'),
  trial_settings: trialSettings().optional(),
  expand: expandParam('subscription').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateSubscriptionParams = z.strictObject({
  items: z
    .array(itemUpdate)
    .max(20, 'a subscription can have at most 20 items')
    .optional()
    .describe('A list of up to 20 subscription items: new ones, changes of existing ones (`id`) and removals (`id` with `deleted`).'),
  proration_behavior: prorationBehavior,
  proration_date: prorationDate,
  payment_behavior: paymentBehavior().optional(),
  billing_thresholds: billingThresholds(),
  cancel_at_period_end: booleanParam()
    .optional()
    .describe('Indicate whether this subscription should cancel at the end of the current period (`current_period_end`).'),
  description: emptyable(stringParam(500)).optional().describe("The subscription's description, meant to be displayable to the customer."),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  cancel_at: emptyable(unixTimeParam()).optional().describe('A timestamp at which the subscription should cancel, or an empty string to clear it.'),
  pause_collection: emptyable(
    z.strictObject({
      behavior: z.enum(['keep_as_draft', 'mark_uncollectible', 'void']).describe('The payment collection behavior for this subscription while paused.'),
      resumes_at: unixTimeParam().optional().describe('The time after which the subscription will resume collecting payments.'),
    }),
  )
    .optional()
    .describe('If specified, payment collection for this subscription will be paused; an empty string resumes it.'),
  trial_end: trialEnd().optional(),
  trial_settings: trialSettings().optional(),
  expand: expandParam('subscription').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const cancelSubscriptionParams = z.strictObject({
  cancellation_details: z
    .strictObject({
      comment: emptyable(stringParam(5000))
        .optional()
        .describe('Additional comments about why the user canceled the subscription, if the subscription was canceled explicitly by the user.'),
      feedback: emptyable(
        z.enum(['customer_service', 'low_quality', 'missing_features', 'other', 'switched_service', 'too_complex', 'too_expensive', 'unused']),
      )
        .optional()
        .describe('The customer submitted reason for why they canceled, if the subscription was canceled explicitly by the user.'),
    })
    .optional()
    .describe('Details about why this subscription was cancelled.'),
  invoice_now: booleanParam()
    .optional()
    .describe('Will generate a final invoice that invoices for any un-invoiced metered usage and new/pending proration invoice items.'),
  prorate: booleanParam().optional().describe('Will generate a proration invoice item that credits remaining unused time until the subscription period end.'),
  expand: expandParam('subscription').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const migrateSubscriptionParams = z.strictObject({
  billing_mode: z
    .strictObject({
      type: z
        .literal('flexible', 'a subscription can only be migrated to the flexible billing mode')
        .describe('Controls the calculation and orchestration of prorations and invoices for subscriptions.'),
      flexible: z
        .strictObject({
          proration_discounts: prorationDiscounts
            .optional()
            .describe('Controls how invoices and invoice items display proration amounts and discount amounts.'),
        })
        .optional()
        .describe('Configure behavior for flexible billing mode.'),
    })
    .describe('Controls how prorations and invoices for subscriptions are calculated and orchestrated.'),
  expand: expandParam('subscription').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const retrieveSubscriptionParams = z.strictObject({
  expand: expandParam('subscription').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listSubscriptionsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('subscription')).optional().describe('Specifies which fields in the response should be expanded.'),
  created: createdParam().optional().describe('Only return objects created during the given interval: Unix seconds, or `gt` / `gte` / `lt` / `lte` bounds.'),
  customer: idParam().optional().describe("The ID of the customer whose subscriptions you're retrieving."),
  status: z
    .enum(['active', 'all', 'canceled', 'ended', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid'])
    .optional()
    .describe(
      'The status of the subscriptions to retrieve. Passing in a value of `canceled` will return all canceled subscriptions, including those belonging to deleted customers.',
    ),
});

export type CreateSubscriptionParams = z.output<typeof createSubscriptionParams>;
export type UpdateSubscriptionParams = z.output<typeof updateSubscriptionParams>;
export type CancelSubscriptionParams = z.output<typeof cancelSubscriptionParams>;
export type MigrateSubscriptionParams = z.output<typeof migrateSubscriptionParams>;
export type CreateSubscriptionItemParams = z.output<typeof createSubscriptionItemParams>;
export type UpdateSubscriptionItemParams = z.output<typeof updateSubscriptionItemParams>;
export type DeleteSubscriptionItemParams = z.output<typeof deleteSubscriptionItemParams>;
