import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { Invoice, InvoiceItem, InvoiceLine, Period } from './invoice.ts';
import { invoiceTotals } from './totals.ts';
import type { invoiceItemObject, invoiceLineObject, invoiceObject } from './objects.ts';

const period = (value: Period) => ({ start: unixSeconds(value.start), end: unixSeconds(value.end) });

const pricing = (source: { price: InvoiceItem['price']; unitAmountDecimal: string | null }) => ({
  type: 'price_details' as const,
  price_details: source.price ? { price: source.price.id, product: source.price.product } : null,
  unit_amount_decimal: source.unitAmountDecimal,
});

export function serializeInvoiceItem(item: InvoiceItem): z.input<typeof invoiceItemObject> {
  return {
    id: item.id,
    object: 'invoiceitem',
    amount: item.amount,
    currency: item.currency,
    customer: item.customer,
    customer_account: null,
    date: unixSeconds(item.created),
    description: item.description,
    discountable: item.discountable,
    discounts: [],
    invoice: item.invoice,
    livemode: item.scope.livemode,
    metadata: item.metadata,
    net_amount: item.amount,
    parent: item.subscription
      ? { type: 'subscription_details', subscription_details: { subscription: item.subscription, subscription_item: item.subscriptionItem } }
      : null,
    period: period(item.period),
    pricing: pricing(item),
    proration: item.proration,
    quantity: item.quantity,
    tax_rates: [],
    test_clock: item.testClock,
  };
}

export function serializeInvoiceLine(invoice: Invoice, line: InvoiceLine): z.input<typeof invoiceLineObject> {
  const details = { proration: line.proration, proration_details: { credited_items: null }, subscription: line.subscription };
  return {
    id: line.id,
    object: 'line_item',
    amount: line.amount,
    currency: line.currency,
    description: line.description,
    discount_amounts: [],
    discountable: line.discountable,
    discounts: [],
    invoice: invoice.id,
    livemode: invoice.scope.livemode,
    metadata: line.metadata,
    // A proration's line is its subscription item's (naming the invoice item that carried it), as the reference shows it.
    parent:
      line.kind === 'invoiceitem' && !(line.proration && line.subscriptionItem)
        ? { type: 'invoice_item_details', invoice_item_details: { invoice_item: line.invoiceItem!, ...details }, subscription_item_details: null }
        : {
            type: 'subscription_item_details',
            invoice_item_details: null,
            subscription_item_details: { invoice_item: line.invoiceItem, ...details, subscription_item: line.subscriptionItem },
          },
    period: period(line.period),
    pretax_credit_amounts: [],
    pricing: pricing(line),
    quantity: line.quantity,
    subtotal: line.amount,
    taxes: [],
  };
}

/** How many lines an invoice object embeds (the rest through GET /v1/invoices/:id/lines), as the reference. */
const embeddedLines = 10;

const timeOrNull = (millis: number | null) => (millis === null ? null : unixSeconds(millis));

export function serializeInvoice(invoice: Invoice): z.input<typeof invoiceObject> {
  const totals = invoiceTotals(invoice);
  const preview = invoice.id.startsWith('upcoming_');
  return {
    id: invoice.id,
    object: 'invoice',
    account_country: null,
    account_name: null,
    amount_due: totals.amountDue,
    amount_overpaid: 0,
    amount_paid: totals.amountPaid,
    amount_remaining: totals.amountRemaining,
    amount_shipping: 0,
    attempt_count: invoice.attemptCount,
    attempted: invoice.attempted,
    auto_advance: invoice.autoAdvance,
    automatically_finalizes_at: invoice.status === 'draft' && invoice.autoAdvance && invoice.due.at !== null ? unixSeconds(invoice.due.at) : null,
    billing_reason: invoice.billingReason,
    collection_method: invoice.collectionMethod,
    created: unixSeconds(invoice.created),
    currency: invoice.currency,
    customer: invoice.customer,
    customer_account: null,
    default_payment_method: null,
    default_source: null,
    description: invoice.description,
    discounts: [],
    due_date: timeOrNull(invoice.dueDate),
    effective_at: timeOrNull(invoice.effectiveAt),
    ending_balance: invoice.endingBalance,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    last_payment_error: invoice.lastPaymentError
      ? {
          code: invoice.lastPaymentError.code,
          decline_code: invoice.lastPaymentError.declineCode,
          message: invoice.lastPaymentError.message,
          source: invoice.lastPaymentError.source,
          type: 'card_error',
        }
      : null,
    lines: {
      object: 'list',
      data: invoice.lines.slice(0, embeddedLines).map((line) => serializeInvoiceLine(invoice, line)),
      has_more: invoice.lines.length > embeddedLines,
      total_count: invoice.lines.length,
      url: preview ? '/v1/invoices/create_preview/lines' : `/v1/invoices/${invoice.id}/lines`,
    },
    livemode: invoice.scope.livemode,
    metadata: invoice.metadata,
    next_payment_attempt: timeOrNull(invoice.nextPaymentAttempt),
    number: invoice.number,
    on_behalf_of: null,
    parent: invoice.subscription
      ? {
          type: 'subscription_details',
          subscription_details: {
            subscription: invoice.subscription,
            metadata: null,
            ...(invoice.subscriptionProrationDate === undefined ? {} : { subscription_proration_date: unixSeconds(invoice.subscriptionProrationDate) }),
          },
        }
      : null,
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: unixSeconds(invoice.periodEnd),
    period_start: unixSeconds(invoice.periodStart),
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: invoice.startingBalance,
    statement_descriptor: null,
    status: invoice.status,
    status_transitions: {
      finalized_at: timeOrNull(invoice.statusTransitions.finalizedAt),
      marked_uncollectible_at: timeOrNull(invoice.statusTransitions.markedUncollectibleAt),
      paid_at: timeOrNull(invoice.statusTransitions.paidAt),
      voided_at: timeOrNull(invoice.statusTransitions.voidedAt),
    },
    subtotal: totals.subtotal,
    subtotal_excluding_tax: totals.subtotal,
    test_clock: invoice.testClock,
    total: totals.total,
    total_discount_amounts: [],
    total_excluding_tax: totals.total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: timeOrNull(invoice.webhooksDeliveredAt),
  };
}
