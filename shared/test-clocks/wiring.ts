import { systemClock } from '#shared/core/clock.ts';
import type { BillingTime } from '#shared/billing/ports.ts';

/** PLACEHOLDER, replaced at merge by helper A's test clocks (same export): every customer is on the stack's clock. */
export const wireBillingTime = (): BillingTime => ({ forCustomer: async () => ({ now: systemClock(), testClock: null }) });
