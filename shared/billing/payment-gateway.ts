import type { PaymentGateway } from './ports.ts';

/**
 * PLACEHOLDER, replaced at merge by helper C's gateway (same exports): every charge fails with
 * `payment_gateway_missing`, so nothing is ever paid by accident before the real gateway is merged.
 */
export const paymentGateway = (_ports: unknown): PaymentGateway => ({
  charge: async () => ({ status: 'failed', code: 'payment_gateway_missing', declineCode: null, message: 'placeholder', source: null }),
});

export const wirePaymentGateway = (): PaymentGateway => paymentGateway({});
