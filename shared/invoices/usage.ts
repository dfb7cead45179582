import { maxLineAmount } from '#shared/billing/money.ts';
import { priceAmount, termsOf } from '#shared/billing/pricing.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { UsageReader } from '#shared/meter-events/meter-event.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Invoice, InvoiceLine, Period } from './invoice.ts';

/**
 * Metered prices on invoices, as the reference bills them: in arrears, each metered item's line carries the
 * usage its price's meter counted for the customer over the period just ended, recounted when the invoice
 * finalizes (so usage and cancellations arriving during the draft's hour count), and never after.
 */

/**
 * The amount of a metered line: its price at the usage quantity. Every usage amount is computed here. Usage
 * whose amount is beyond what a line may carry (or whose quantity is beyond an exact integer) is refused with
 * `amount_too_large`, never rounded or capped: a preview answers 400, and a period's invoice stays undone
 * (its processor fails and is retried) until the usage is adjusted.
 */
export function usageLineAmount(price: Price, quantity: number): number {
  let amount: number | undefined;
  try {
    amount = Number.isSafeInteger(quantity) ? priceAmount(termsOf(price), quantity) : undefined;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  if (amount === undefined || Math.abs(amount) > maxLineAmount) {
    throw new InvalidRequestError(
      `The usage of meter ${price.recurring?.meter ?? ''} (${quantity}) at price ${price.id} comes to more than ${maxLineAmount}, the most one line may carry.`,
      'amount_too_large',
    );
  }
  return amount;
}

/** Whether a price bills usage from its meter (`recurring.usage_type=metered`). */
export const isMetered = (price: Price | null): boolean => price?.recurring?.usageType === 'metered';

/**
 * Whether a line bills the usage of its period: a metered subscription line whose period had ended when its
 * invoice was made (in arrears). A metered item's line on a subscription's first invoice (or a trial's end)
 * covers the period ahead at zero and stays zero: that period's usage is billed by the invoice after it.
 * Periods are consecutive and the reader floors both bounds to the minute, so an event counts on one line.
 */
export const billsUsage = (line: InvoiceLine, invoice: Pick<Invoice, 'created'>): boolean =>
  line.kind === 'subscription' && !line.proration && isMetered(line.price) && line.period.end <= invoice.created;

/** The usage a metered price's meter counted for a customer over a period. */
export interface MeteredUsage {
  quantity(scope: Scope, price: Price, customer: string, period: Period): Promise<number>;
}

/** `MeteredUsage` from the price's meter (one read, for its formula) and a `UsageReader`. */
export function meteredUsage({ meters, reader }: { meters: Pick<MeterRepository, 'get'>; reader: UsageReader }): MeteredUsage {
  return {
    async quantity(scope, price, customer, period) {
      const meterId = price.recurring?.meter;
      if (!meterId) return 0;
      // A meter is never deleted (only deactivated, which keeps what it counted), so this finds it.
      const meter = await meters.get(scope, meterId);
      if (!meter) return 0;
      return reader.aggregate(scope, meter, customer, period.start, period.end);
    },
  };
}

/**
 * The lines with every usage line (`billsUsage`) at the quantity counted now and its amount; the same usage
 * gives the same lines, so recounting is idempotent. The input's lines when none bills usage.
 */
export async function recountUsage(usage: MeteredUsage, invoice: Invoice): Promise<InvoiceLine[]> {
  if (!invoice.lines.some((line) => billsUsage(line, invoice))) return invoice.lines;
  return Promise.all(
    invoice.lines.map(async (line) => {
      if (!billsUsage(line, invoice)) return line;
      const quantity = await usage.quantity(invoice.scope, line.price!, invoice.customer, line.period);
      return { ...line, quantity, amount: usageLineAmount(line.price!, quantity) };
    }),
  );
}
