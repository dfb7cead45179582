import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { paymentGateway } from './payment-gateway.ts';
import type { PaymentGateway } from './ports.ts';

/** The payment gateway on the real table: charges decided by the customer's stored default source. */
export const wirePaymentGateway = (): PaymentGateway => paymentGateway({ customers: dynamoCustomerRepository(serviceTable()) });
