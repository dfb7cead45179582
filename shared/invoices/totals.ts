import { sumAmounts } from '#shared/billing/money.ts';
import type { Invoice } from './invoice.ts';

/**
 * An invoice's totals from its lines (no discounts or taxes are modelled, so `total` is the `subtotal`):
 * `amount_remaining` is what is due and not paid; after finalization `amount_due` is fixed with the
 * customer's balance applied (shared/billing/money.ts `applyBalance`).
 */
export function invoiceTotals(invoice: Pick<Invoice, 'lines' | 'amountDue' | 'amountPaid' | 'status'>) {
  const subtotal = sumAmounts(invoice.lines.map((line) => line.amount));
  const total = subtotal;
  const amountDue = invoice.amountDue;
  const amountRemaining = invoice.status === 'void' || invoice.status === 'paid' ? 0 : amountDue - invoice.amountPaid;
  return { subtotal, total, amountDue, amountPaid: invoice.amountPaid, amountRemaining };
}
