import * as z from 'zod';
import { planObject, priceObject } from '#shared/catalogue/objects.ts';
import { customerOrIdObject } from '#shared/customers/objects.ts';
import { invoiceObject } from '#shared/invoices/objects.ts';
import { deletedTestClockObject, testClockObject } from '#shared/test-clocks/objects.ts';
import { metadataObject, unixTime } from '#shared/wire/objects.ts';

export const subscriptionItemObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('subscription_item').describe("String representing the object's type. Objects of the same type share the same value."),
    billing_thresholds: z
      .object({
        usage_gte: z.int().nullable().describe('Usage threshold that triggers the subscription to create an invoice'),
      })
      .nullable()
      .describe('Define thresholds at which an invoice will be sent, and the related subscription advanced to a new billing period.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    current_period_end: unixTime.optional().describe("The end time of this subscription item's current billing period (from version 2025-03-31.basil on)."),
    current_period_start: unixTime.optional().describe("The start time of this subscription item's current billing period (from version 2025-03-31.basil on)."),
    discounts: z
      .array(z.string())
      .describe('The discounts applied to the subscription item. Subscription item discounts are applied before subscription discounts.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    plan: planObject.describe("The item's price in the reference's older plan shape."),
    price: priceObject.describe('Prices define the unit cost, currency, and (optional) billing cycle for both recurring and one-time purchases of products.'),
    quantity: z.int().optional().describe('The quantity of the plan to which the customer should be subscribed (absent for a metered price).'),
    subscription: z.string().describe('The `subscription` this `subscription_item` belongs to.'),
    tax_rates: z.array(z.unknown()).describe('The tax rates which apply to this `subscription_item`.'),
  })
  .meta({ id: 'SubscriptionItem' });

const flexibleObject = z.object({
  proration_discounts: z.enum(['included', 'itemized']).describe('Controls how invoices and invoice items display proration amounts and discount amounts.'),
});

const billingModeType = z.enum(['classic', 'flexible']);

export const subscriptionObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('subscription').describe("String representing the object's type. Objects of the same type share the same value."),
    application: z.null().describe('ID of the Connect Application that created the subscription.'),
    application_fee_percent: z.null().describe('A non-negative decimal between 0 and 100, with at most two decimal places.'),
    automatic_tax: z
      .object({
        disabled_reason: z.null().describe('If the service disabled automatic tax, this enum describes why.'),
        enabled: z.boolean().describe('Whether the service automatically computes tax on this subscription.'),
        liability: z
          .null()
          .describe(
            "The account that's liable for tax. If set, the business address and tax registrations required to perform the tax calculation are loaded from this account.",
          ),
      })
      .describe('Automatic tax settings for this subscription.'),
    billing_cycle_anchor: unixTime.describe('The reference point that aligns future billing cycle dates.'),
    billing_cycle_anchor_config: z.null().describe('The fixed values used to calculate the `billing_cycle_anchor`.'),
    /** A string before version 2025-06-30.basil (with `billing_mode_details`), an object from then on. */
    billing_mode: z
      .union([
        billingModeType,
        z.object({
          type: billingModeType.describe('Controls how prorations and invoices for subscriptions are calculated and orchestrated.'),
          flexible: flexibleObject.nullable().describe('Configure behavior for flexible billing mode.'),
          updated_at: unixTime.optional().describe('Details on when the current billing_mode was adopted.'),
        }),
      ])
      .describe('The billing mode of the subscription. A string before version 2025-06-30.basil (with `billing_mode_details`), an object from then on.'),
    billing_mode_details: z
      .object({
        updated_at: unixTime.describe('Details on when the current billing_mode was adopted.'),
        flexible: flexibleObject.optional().describe('Configure behavior for flexible billing mode.'),
      })
      .nullable()
      .optional()
      .describe('Details about when the current billing mode was last changed (versions before 2025-06-30.basil).'),
    billing_thresholds: z
      .object({
        amount_gte: z.int().nullable().describe('Monetary threshold that triggers the subscription to create an invoice'),
        reset_billing_cycle_anchor: z.boolean().nullable().describe('Indicates if the `billing_cycle_anchor` should be reset when a threshold is reached.'),
      })
      .nullable()
      .describe('Define thresholds at which an invoice will be sent, and the subscription advanced to a new billing period.'),
    cancel_at: unixTime.nullable().describe('A date in the future at which the subscription will automatically get canceled.'),
    cancel_at_period_end: z
      .boolean()
      .describe('Whether this subscription will (if `status=active`) or did (if `status=canceled`) cancel at the end of the current billing period.'),
    canceled_at: unixTime.nullable().describe('If the subscription has been canceled, the date of that cancellation.'),
    cancellation_details: z
      .object({
        comment: z
          .string()
          .nullable()
          .describe('Additional comments about why the user canceled the subscription, if the subscription was canceled explicitly by the user.'),
        feedback: z
          .string()
          .nullable()
          .describe('The customer submitted reason for why they canceled, if the subscription was canceled explicitly by the user.'),
        reason: z.string().nullable().describe('Why this subscription was canceled.'),
      })
      .describe('Details about why this subscription was cancelled.'),
    collection_method: z
      .enum(['charge_automatically', 'send_invoice'])
      .describe(
        'Either `charge_automatically`, or `send_invoice`. When charging automatically, the service will attempt to pay this subscription at the end of the cycle using the default source attached to the customer.',
      ),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
    current_period_end: unixTime
      .optional()
      .describe('Before version 2025-03-31.basil only: the end of the period every item is in (items carry their own from then on).'),
    current_period_start: unixTime
      .optional()
      .describe('Before version 2025-03-31.basil only: the start of the period every item is in (items carry their own from then on).'),
    /** The customer's id, or the customer when expanded (the reference's deleted customer for one deleted). */
    get customer() {
      return customerOrIdObject().describe('ID of the customer who owns the subscription, or the customer when expanded.');
    },
    days_until_due: z.int().nullable().describe('Number of days a customer has to pay invoices generated by this subscription.'),
    default_payment_method: z.null().describe('ID of the default payment method for the subscription.'),
    default_source: z.null().describe('ID of the default payment source for the subscription.'),
    default_tax_rates: z.array(z.unknown()).describe('The tax rates that will apply to any subscription item that does not have `tax_rates` set.'),
    description: z.string().nullable().describe("The subscription's description, meant to be displayable to the customer."),
    discount: z.null().optional().describe('Before version 2025-03-31.basil only: the discount applied to the subscription.'),
    discounts: z
      .array(z.string())
      .describe('The discounts applied to the subscription. Subscription item discounts are applied before subscription discounts.'),
    ended_at: unixTime.nullable().describe('If the subscription has ended, the date the subscription ended.'),
    invoice_settings: z
      .object({
        account_tax_ids: z.null().describe('The account tax IDs associated with the subscription.'),
        issuer: z
          .object({ type: z.literal('self').describe('Type of the account referenced.') })
          .describe(
            'The connected account that issues the invoice. The invoice is presented with the branding and support information of the specified account.',
          ),
      })
      .describe('All invoices will be billed using the specified settings.'),
    items: z
      .object({
        object: z.literal('list').describe("String representing the object's type. Objects of the same type share the same value."),
        data: z.array(subscriptionItemObject).describe("The subscription's items."),
        has_more: z.boolean().describe('Whether there are more items than listed.'),
        total_count: z.int().describe('How many items the subscription has.'),
        url: z.string().describe("The URL of the subscription's items."),
      })
      .describe('List of subscription items, each with an attached price.'),
    latest_invoice: z
      .union([z.string(), invoiceObject])
      .nullable()
      .describe('The most recent invoice this subscription has generated over its lifecycle (for example, when it cycles or is updated).'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    next_pending_invoice_item_invoice: z
      .null()
      .describe(
        'Specifies the approximate timestamp on which any pending invoice items will be billed according to the schedule provided at `pending_invoice_item_interval`.',
      ),
    on_behalf_of: z.null().describe('The account (if any) the charge was made on behalf of for charges associated with this subscription.'),
    pause_collection: z
      .object({
        behavior: z.enum(['keep_as_draft', 'mark_uncollectible', 'void']).describe('The payment collection behavior for this subscription while paused.'),
        resumes_at: unixTime.nullable().describe('The time after which the subscription will resume collecting payments.'),
      })
      .nullable()
      .describe('If specified, payment collection for this subscription will be paused.'),
    payment_settings: z.null().describe('Payment settings passed on to invoices created by the subscription.'),
    pending_invoice_item_interval: z.null().describe('Specifies an interval for how often to bill for any pending invoice items.'),
    pending_setup_intent: z
      .null()
      .describe(
        "You can use this SetupIntent to collect user authentication when creating a subscription without immediate payment or updating a subscription's payment method, allowing you to optimize for off-session payments.",
      ),
    pending_update: z.null().describe('If specified, pending updates that will be applied to the subscription once the `latest_invoice` has been paid.'),
    schedule: z.null().describe('The schedule attached to the subscription.'),
    start_date: unixTime.describe('Date when the subscription was first created. The date might differ from the `created` date due to backdating.'),
    status: z
      .enum(['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'])
      .describe('Possible values are `incomplete`, `incomplete_expired`, `trialing`, `active`, `past_due`, `canceled`, `unpaid`, or `paused`.'),
    test_clock: z.union([z.string(), testClockObject, deletedTestClockObject]).nullable().describe('ID of the test clock this subscription belongs to.'),
    transfer_data: z
      .null()
      .describe(
        "The account (if any) the subscription's payments will be attributed to for tax reporting, and where funds from each payment will be transferred to for each of the subscription's invoices.",
      ),
    trial_end: unixTime.nullable().describe('If the subscription has a trial, the end of that trial.'),
    trial_settings: z
      .object({
        end_behavior: z
          .object({
            missing_payment_method: z
              .enum(['cancel', 'create_invoice', 'pause'])
              .describe('Indicates how the subscription should change when the trial ends if the user did not provide a payment method.'),
          })
          .describe('Defines how a subscription behaves when a trial ends.'),
      })
      .describe('Settings related to subscription trials.'),
    trial_start: unixTime.nullable().describe('If the subscription has a trial, the beginning of that trial.'),
  })
  .meta({ id: 'Subscription' });

export const deletedSubscriptionItemObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('subscription_item').describe("String representing the object's type. Objects of the same type share the same value."),
    deleted: z.literal(true).describe('Always true for a deleted object.'),
  })
  .meta({ id: 'DeletedSubscriptionItem' });
