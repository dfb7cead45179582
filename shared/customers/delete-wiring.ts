import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerServiceOn } from './wiring.ts';

/**
 * The service with `delete`, which cancels the customer's subscriptions first: a module of its own, so only
 * the functions that delete customers bundle the subscription service (docs/architecture.md, *Wiring per operation*).
 */
export const wireCustomerDeletion = () => customerServiceOn(wireSubscriptionService());
