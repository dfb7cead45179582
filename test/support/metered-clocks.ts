import type Stripe from 'stripe';
import { expect } from 'vitest';
import { eventually } from './wait.ts';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `months` after `seconds` (UTC), as a monthly period counts it. */
export const monthAfter = (seconds: number, months = 1) => {
  const date = new Date(seconds * 1000);
  date.setUTCMonth(date.getUTCMonth() + months);
  return Math.floor(date.getTime() / 1000);
};

/**
 * What the metered-billing scenarios on test clocks share, through the official SDK: a card token, a
 * customer paying with it on a clock of its own started ten minutes back (meter events are timestamped on
 * the stack's clock, so they must fall inside its period), waiting for the meter to count, and moving a
 * clock until it is ready. `of` gives the file's clients and meter once its `beforeAll` has made them.
 */
export function meteredClocks(of: () => { client: Stripe; publishable: Stripe; meter: Stripe.Billing.Meter }) {
  const card = async () =>
    (
      await of().publishable.tokens.create({
        card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 4), cvc: '123' },
      })
    ).id;
  return {
    card,
    /** Waits until the meter counted `wanted` for the customer since `since`. */
    usageBecomes: (customerId: string, since: number, wanted: number) =>
      eventually(async () => {
        const { client, meter } = of();
        const summaries = await client.billing.meters.listEventSummaries(meter.id, {
          customer: customerId,
          start_time: Math.floor(since / 60) * 60,
          end_time: (Math.floor(nowSeconds() / 60) + 10) * 60,
        });
        return summaries.data.reduce((sum, summary) => sum + summary.aggregated_value, 0) === wanted ? wanted : undefined;
      }, 30_000),
    /** A fresh clock ten minutes back with a paying customer on it. */
    onClock: async (name: string) => {
      const { client } = of();
      const start = nowSeconds() - 600;
      const clock = await client.testHelpers.testClocks.create({ frozen_time: start, name });
      const customer = await client.customers.create({ name, test_clock: clock.id, source: await card() });
      return { start, clock, customer };
    },
    /** Moves the clock and waits until it is ready again (failing at once on `internal_failure`). */
    advanceTo: async (clockId: string, frozenTime: number) => {
      const { client } = of();
      await client.testHelpers.testClocks.advance(clockId, { frozen_time: frozenTime });
      return eventually(async () => {
        const current = await client.testHelpers.testClocks.retrieve(clockId);
        expect(current.status).not.toBe('internal_failure');
        return current.status === 'ready' ? current : undefined;
      }, 120_000);
    },
  };
}
