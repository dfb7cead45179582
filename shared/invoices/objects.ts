import * as z from 'zod';
import { deletedObject, metadataObject, unixTime } from '#shared/wire/objects.ts';

const periodObject = z.object({ start: unixTime.describe('The start of the period.'), end: unixTime.describe('The end of the period.') });

const pricingObject = z
  .object({
    type: z.literal('price_details').describe('The type of the pricing details.'),
    price_details: z.object({ price: z.string().describe('The ID of the price.'), product: z.string().describe('The ID of the product.') }).nullable(),
    unit_amount_decimal: z.string().nullable().describe('The unit amount (in the smallest currency unit) of the item, as a decimal string.'),
  })
  .describe('The pricing information of the item.');

export const invoiceItemObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('invoiceitem').describe("String representing the object's type."),
    amount: z.int().describe('Amount (in the smallest currency unit) of the invoice item: quantity × unit amount, rounded.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase.'),
    customer: z.string().describe('The ID of the customer who will be billed when this invoice item is billed.'),
    customer_account: z.null().describe('The ID of the account who will be billed (not modelled).'),
    date: unixTime.describe("Time at which the object was created (on the customer's billing time)."),
    description: z.string().nullable().describe('An arbitrary string attached to the object.'),
    discountable: z.boolean().describe('If true, discounts will apply to this invoice item.'),
    discounts: z.array(z.string()).describe('The discounts which apply to the invoice item (none: discounts are not modelled).'),
    invoice: z.string().nullable().describe('The ID of the invoice this invoice item belongs to, null while pending.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode.'),
    metadata: metadataObject,
    net_amount: z.int().describe('The amount after discounts, but before credits and taxes.'),
    parent: z
      .object({
        type: z.literal('subscription_details'),
        subscription_details: z.object({ subscription: z.string(), subscription_item: z.string().nullable().optional() }),
      })
      .nullable()
      .optional()
      .describe('The parent that generated this invoice item (from version 2025-03-31.basil on).'),
    subscription: z.string().nullable().optional().describe('The subscription the item belongs to (versions before 2025-03-31.basil).'),
    subscription_item: z.string().nullable().optional().describe('The subscription item the item belongs to (versions before 2025-03-31.basil).'),
    period: periodObject.describe('The period associated with this invoice item.'),
    pricing: pricingObject.nullable().describe('The pricing information of the invoice item.'),
    proration: z.boolean().describe('Whether the invoice item was created automatically as a proration adjustment.'),
    quantity: z.int().describe('Quantity of units for the invoice item.'),
    tax_rates: z.array(z.unknown()).nullable().describe('The tax rates which apply to the invoice item.'),
    test_clock: z.string().nullable().describe('ID of the test clock this invoice item belongs to.'),
  })
  .meta({ id: 'InvoiceItem' });

export const invoiceLineObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('line_item').describe("String representing the object's type."),
    amount: z.int().describe('The amount, in the smallest currency unit.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase.'),
    description: z.string().nullable().describe('An arbitrary string attached to the object.'),
    discount_amounts: z.array(z.unknown()).describe('The amount of discount calculated per discount for this line item.'),
    discountable: z.boolean().describe('If true, discounts will apply to this line item.'),
    discounts: z.array(z.string()).describe('The discounts applied to the invoice line item.'),
    invoice: z.string().describe('The ID of the invoice that contains this line item.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode.'),
    metadata: metadataObject,
    parent: z
      .object({
        type: z.enum(['invoice_item_details', 'subscription_item_details']),
        invoice_item_details: z
          .object({
            invoice_item: z.string(),
            proration: z.boolean(),
            proration_details: z.object({ credited_items: z.null() }),
            subscription: z.string().nullable(),
          })
          .nullable(),
        subscription_item_details: z
          .object({
            invoice_item: z.string().nullable(),
            proration: z.boolean(),
            proration_details: z.object({ credited_items: z.null() }),
            subscription: z.string().nullable(),
            subscription_item: z.string().nullable(),
          })
          .nullable(),
      })
      .optional()
      .describe('The parent that generated this line item (from version 2025-03-31.basil on).'),
    type: z.enum(['invoiceitem', 'subscription']).optional().describe('What made the line (versions before 2025-03-31.basil).'),
    invoice_item: z.string().nullable().optional().describe('The invoice item of the line (versions before 2025-03-31.basil).'),
    subscription: z.string().nullable().optional().describe('The subscription of the line (versions before 2025-03-31.basil).'),
    subscription_item: z.string().nullable().optional().describe('The subscription item of the line (versions before 2025-03-31.basil).'),
    proration: z.boolean().optional().describe('Whether the line is a proration (versions before 2025-03-31.basil).'),
    proration_details: z.unknown().optional().describe('Proration details (versions before 2025-03-31.basil).'),
    period: periodObject.describe('The period this line item covers.'),
    pretax_credit_amounts: z.array(z.unknown()).describe('Credits applied before taxes.'),
    pricing: pricingObject.nullable().describe('The pricing information of the line item.'),
    quantity: z.int().nullable().describe('The quantity of the subscription, if the line item is a subscription or a proration.'),
    subtotal: z.int().describe('The subtotal of the line item, before discounts and taxes.'),
    taxes: z.array(z.unknown()).describe('The tax information of the line item.'),
  })
  .meta({ id: 'InvoiceLineItem' });

export const invoiceObject = z
  .object({
    id: z.string().describe('Unique identifier for the object (absent on a preview in the reference; here `upcoming_in_<customer>`).'),
    object: z.literal('invoice').describe("String representing the object's type."),
    account_country: z.null().describe('The country of the business associated with this invoice.'),
    account_name: z.null().describe('The public name of the business associated with this invoice.'),
    amount_due: z.int().describe('Final amount due at this time for this invoice.'),
    amount_overpaid: z.int().describe('Amount that was overpaid on the invoice.'),
    amount_paid: z.int().describe('The amount, in the smallest currency unit, that was paid.'),
    amount_remaining: z.int().describe('The difference between amount_due and amount_paid.'),
    amount_shipping: z.int().describe('This is the sum of all the shipping amounts.'),
    attempt_count: z.int().describe('Number of payment attempts made for this invoice.'),
    attempted: z.boolean().describe('Whether an attempt has been made to pay the invoice.'),
    auto_advance: z.boolean().describe('Whether the service automatically finalizes and collects the invoice.'),
    automatically_finalizes_at: unixTime.nullable().describe('The time when this invoice is scheduled to finalize automatically.'),
    billing_reason: z.string().nullable().describe('Indicates the reason why the invoice was created.'),
    collection_method: z.enum(['charge_automatically', 'send_invoice']).describe('How the invoice is collected.'),
    created: unixTime.describe("Time at which the object was created (on the customer's billing time)."),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase.'),
    customer: z.string().describe('The ID of the customer who will be billed.'),
    customer_account: z.null().describe('The ID of the account who will be billed (not modelled).'),
    default_payment_method: z.null().describe('ID of the default payment method for the invoice.'),
    default_source: z.null().describe('ID of the default payment source for the invoice.'),
    description: z.string().nullable().describe('An arbitrary string attached to the object.'),
    discounts: z.array(z.string()).describe('The discounts applied to the invoice.'),
    due_date: unixTime.nullable().describe('The date on which payment for this invoice is due (send_invoice).'),
    effective_at: unixTime.nullable().describe('The date when this invoice is in effect.'),
    ending_balance: z.int().nullable().describe('Ending customer balance after the invoice is finalized; null until then.'),
    hosted_invoice_url: z.null().describe('The URL for the hosted invoice page (not served).'),
    invoice_pdf: z.null().describe('The link to download the PDF for the invoice (not served).'),
    issuer: z.object({ type: z.literal('self') }).describe('The connected account that issues the invoice.'),
    last_finalization_error: z.null().describe('The error encountered during the previous attempt to finalize the invoice.'),
    last_payment_error: z
      .object({ code: z.string(), decline_code: z.string().nullable(), message: z.string(), source: z.string().nullable(), type: z.literal('card_error') })
      .nullable()
      .optional()
      .describe('The error of the last failed payment try (this service shows it on the invoice, having no payment intents).'),
    lines: z
      .object({ object: z.literal('list'), data: z.array(invoiceLineObject), has_more: z.boolean(), total_count: z.int(), url: z.string() })
      .describe('The individual line items that make up the invoice (the first 10; the rest through its `url`).'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode.'),
    metadata: metadataObject,
    next_payment_attempt: unixTime.nullable().describe('The time at which payment will next be attempted.'),
    number: z.string().nullable().describe('A unique, identifying string that appears on emails sent to the customer for this invoice.'),
    on_behalf_of: z.null().describe('The account on behalf of which to charge.'),
    parent: z
      .object({
        type: z.literal('subscription_details'),
        subscription_details: z.object({
          subscription: z.string(),
          metadata: z.null(),
          subscription_proration_date: unixTime.optional().describe('Only on a preview of prorations: the time they were computed at.'),
        }),
      })
      .nullable()
      .optional()
      .describe('The parent that generated this invoice (from version 2025-03-31.basil on).'),
    subscription: z.string().nullable().optional().describe('The subscription of the invoice (versions before 2025-03-31.basil).'),
    subscription_details: z.object({ metadata: z.null() }).nullable().optional().describe('Versions before 2025-03-31.basil.'),
    quote: z.null().optional().describe('The quote of the invoice (versions before 2025-03-31.basil; no quotes here).'),
    discount: z.null().optional().describe('The legacy discount (versions before 2025-03-31.basil; no coupons here).'),
    payment_settings: z
      .object({ default_mandate: z.null(), payment_method_options: z.null(), payment_method_types: z.null() })
      .describe('Configuration settings for the PaymentIntent that is generated when the invoice is finalized (none here).'),
    period_end: unixTime.describe('End of the usage period during which invoice items were added to this invoice.'),
    period_start: unixTime.describe('Start of the usage period during which invoice items were added to this invoice.'),
    post_payment_credit_notes_amount: z.int().describe('Total amount of all post-payment credit notes issued (no credit notes here: 0).'),
    pre_payment_credit_notes_amount: z.int().describe('Total amount of all pre-payment credit notes issued (no credit notes here: 0).'),
    receipt_number: z.null().describe('The receipt number (not issued here).'),
    rendering: z.null().describe('The rendering-related settings (not modelled).'),
    shipping_cost: z.null().describe('The details of the cost of shipping (not modelled).'),
    shipping_details: z.null().describe('Shipping details for the invoice (not modelled).'),
    starting_balance: z.int().describe('Starting customer balance before the invoice is finalized.'),
    statement_descriptor: z.null().describe('Extra information about an invoice for the statement (not modelled).'),
    status: z.enum(['draft', 'open', 'paid', 'uncollectible', 'void']).describe('The status of the invoice.'),
    status_transitions: z
      .object({
        finalized_at: unixTime.nullable(),
        marked_uncollectible_at: unixTime.nullable(),
        paid_at: unixTime.nullable(),
        voided_at: unixTime.nullable(),
      })
      .describe("When the invoice moved to each status (on the customer's billing time)."),
    subtotal: z.int().describe('Total of all line items before discounts or taxes are applied.'),
    subtotal_excluding_tax: z.int().nullable().describe('The subtotal, excluding tax (no taxes here: the subtotal).'),
    test_clock: z.string().nullable().describe('ID of the test clock this invoice belongs to.'),
    total: z.int().describe('Total after discounts and taxes.'),
    total_discount_amounts: z.array(z.unknown()).nullable().describe('The aggregate amounts calculated per discount (none).'),
    total_excluding_tax: z.int().nullable().describe('The total, excluding tax (no taxes here: the total).'),
    total_pretax_credit_amounts: z.array(z.unknown()).nullable().describe('Credits applied before taxes (none).'),
    total_taxes: z.array(z.unknown()).nullable().describe('The aggregate tax information (none).'),
    webhooks_delivered_at: unixTime.nullable().describe('When the webhooks of the invoice were delivered (not tracked: null).'),
  })
  .meta({ id: 'Invoice' });

export const deletedInvoiceItemObject = deletedObject('invoiceitem').meta({ id: 'DeletedInvoiceItem' });

export const deletedInvoiceObject = deletedObject('invoice').meta({ id: 'DeletedInvoice' });
