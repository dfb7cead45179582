import * as z from 'zod';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { booleanParam, currencyParam, emptyable, expandParam, idParam, unixTimeParam } from '#shared/wire/params.ts';
import { type CreatePreviewParams, createPreviewParams } from './preview-schemas.ts';

/**
 * `GET /v1/invoices/upcoming`, the form of a preview the reference took before `2025-03-31.basil` (and older
 * SDKs, such as stripe-python 5, still send): the subscription change in flat `subscription_*` parameters, which
 * are `create_preview`'s `subscription_details` under other names.
 */
const details = createPreviewParams.shape.subscription_details.unwrap().shape;

export const upcomingInvoiceParams = z.strictObject({
  customer: idParam().optional().describe('The identifier of the customer whose upcoming invoice is previewed.'),
  currency: currencyParam().optional().describe('The currency to preview this invoice in.'),
  subscription: idParam().optional().describe('The identifier of the subscription whose next invoice is previewed.'),
  subscription_items: details.items.describe('The subscription items to preview as changed, added (no `id`) or removed (`deleted`).'),
  subscription_proration_behavior: details.proration_behavior,
  subscription_proration_date: unixTimeParam().optional().describe('The time the previewed prorations are computed at (within the current period).'),
  subscription_cancel_at_period_end: booleanParam().optional().describe('Preview the subscription cancelling at the end of its current period.'),
  subscription_cancel_at: emptyable(unixTimeParam()).optional().describe('Preview the subscription cancelling at this time.'),
  subscription_billing_cycle_anchor: details.billing_cycle_anchor,
  subscription_trial_end: details.trial_end,
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

type UpcomingInvoiceParams = z.output<typeof upcomingInvoiceParams>;

/** The legacy names of `subscription_details`' fields. */
const legacyNames = {
  items: 'subscription_items',
  proration_behavior: 'subscription_proration_behavior',
  proration_date: 'subscription_proration_date',
  cancel_at_period_end: 'subscription_cancel_at_period_end',
  cancel_at: 'subscription_cancel_at',
  billing_cycle_anchor: 'subscription_billing_cycle_anchor',
  trial_end: 'subscription_trial_end',
} as const;

/** The `create_preview` parameters a legacy upcoming-invoice request stands for. */
export function previewParamsOfUpcoming(params: UpcomingInvoiceParams): CreatePreviewParams {
  const { customer, currency, subscription, expand } = params;
  const subscriptionDetails = Object.fromEntries(
    Object.entries(legacyNames).flatMap(([name, legacy]) => (params[legacy] === undefined ? [] : [[name, params[legacy]]])),
  ) as NonNullable<CreatePreviewParams['subscription_details']>;
  return {
    customer,
    currency,
    subscription,
    expand,
    ...(Object.keys(subscriptionDetails).length > 0 ? { subscription_details: subscriptionDetails } : {}),
  };
}

/** An error of the preview named as the legacy request named the parameter (`subscription_details[items][0][id]` → `subscription_items[0][id]`). */
export function inLegacyNames(error: unknown): unknown {
  if (!(error instanceof InvalidRequestError) || !error.param?.startsWith('subscription_details[')) return error;
  const renamed = error.param.replace(/^subscription_details\[(\w+)\]/, (whole, name: string) => legacyNames[name as keyof typeof legacyNames] ?? whole);
  return new InvalidRequestError(error.message.replaceAll(error.param, renamed), error.code, renamed);
}
