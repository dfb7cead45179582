import { applyBalance } from './money.ts';

/**
 * The smallest amount the reference charges per currency (its "minimum and maximum charge amounts" table), in
 * the currency's minor units: USD $0.50, GBP £0.30, JPY ¥50 and so on. A currency the table does not list
 * has no minimum here (the reference asks for the equivalent of $0.50 at the day's rate, which a stack
 * without exchange rates cannot know).
 */
export const minimumChargeAmounts: Readonly<Record<string, number>> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

/**
 * What an invoice's `total` comes to once the customer's balance is applied, as the reference finalizes it:
 * a credit (negative balance) pays what it can, a debit is added; and an amount due under the currency's
 * minimum is not charged: the invoice is paid at zero and the amount is carried to the customer's balance
 * as a debit for the next invoice (`carried`).
 */
export function amountDueAfterBalance(total: number, startingBalance: number, currency: string): { amountDue: number; endingBalance: number; carried: number } {
  const { amountDue, endingBalance } = applyBalance(total, startingBalance);
  const minimum = minimumChargeAmounts[currency.toLowerCase()] ?? 0;
  if (amountDue > 0 && amountDue < minimum) return { amountDue: 0, endingBalance: amountDue, carried: amountDue };
  return { amountDue, endingBalance, carried: 0 };
}
