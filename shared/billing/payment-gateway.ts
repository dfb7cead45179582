import type { CustomerRepository } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import { cardDeclines } from '#shared/tokens/card-numbers.ts';
import type { ChargeOutcome, PaymentGateway } from './ports.ts';

export interface PaymentGatewayPorts {
  customers: Pick<CustomerRepository, 'get' | 'getSource'>;
}

/** The reference's answer when an invoice is charged for a customer with nothing to charge. */
const noPaymentMethod = 'This customer has no attached payment source or default payment method. Please consider adding a default payment method.';

/**
 * Live mode has no payment network to send a charge to, so every live-mode charge fails with this code
 * (never a pretend success: an invoice must not read paid when no money moved). Live invoices are settled
 * with `paid_out_of_band` or collected with `send_invoice`; docs/billing.md, Payments.
 */
export const noPaymentNetworkCode = 'payment_network_unavailable';

const noPaymentNetwork =
  'Live mode has no payment network here: nothing can be charged. Mark the invoice paid out of band (`paid_out_of_band=true`) once it is paid elsewhere, or use `collection_method=send_invoice`.';

/**
 * Charges without a payment network (`PaymentGateway`): two strongly consistent GetItems at most (the
 * customer, then its default source; 1 RCU each, so a retry just after the card was replaced sees the new
 * card). In test mode the outcome stored on the card when it was tokenized decides; a verified bank account
 * charges (the reference settles ACH debits days later; there is no settlement here), an unverified one is
 * refused as the reference refuses it. Live mode refuses every charge (`noPaymentNetworkCode`).
 */
export function paymentGateway({ customers }: PaymentGatewayPorts): PaymentGateway {
  return {
    async charge(scope: Scope, request: { customer: string; amount: number; currency: string; invoice: string }): Promise<ChargeOutcome> {
      const customer = await customers.get(scope, request.customer);
      const sourceId = customer?.defaultSource ?? null;
      const source = sourceId === null ? undefined : await customers.getSource(scope, request.customer, sourceId);
      if (!source) return { status: 'failed', code: 'missing_payment_method', declineCode: null, message: noPaymentMethod, source: null };
      if (scope.livemode) return { status: 'failed', code: noPaymentNetworkCode, declineCode: null, message: noPaymentNetwork, source: source.id };
      // A zero amount is not sent to a network in the reference either: nothing to decline.
      if (source.object === 'bank_account' && source.status !== 'verified') {
        return {
          status: 'failed',
          code: 'bank_account_unverified',
          declineCode: null,
          message: "The customer's bank account must be verified (with its micro-deposit amounts) before it can be charged.",
          source: source.id,
        };
      }
      if (request.amount === 0 || source.object !== 'card' || source.card.outcome === null || source.card.outcome === 'succeeds') {
        return { status: 'succeeded', source: source.id };
      }
      const decline = cardDeclines[source.card.outcome];
      return { status: 'failed', code: decline.code, declineCode: decline.declineCode, message: decline.message, source: source.id };
    },
  };
}
