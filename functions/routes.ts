import type { QueueName } from '#shared/messaging/queues.ts';
import type { Route as HttpRoute } from '#shared/http/route.ts';
import type { Permission } from './permissions.ts';

/** A route of this table: its permissions are the table's words (./permissions.ts). */
export type Route = HttpRoute<Permission>;

/** Every request authenticates (a table read) and counts against its key's rate limit. */
const reads: Permission[] = ['table:read', 'table:count-requests'];
/** A v2 list's page tokens and a v1 search's `page` are keyed by the account's secret. */
const pagedReads: Permission[] = [...reads, 'table:read-account-secrets'];
/**
 * Every POST and DELETE may write an idempotency record, whose fingerprint is keyed by the account's secret
 * (created then for an account made before accounts got theirs at creation).
 */
const writes: Permission[] = [...pagedReads, 'table:create-account-secrets', 'table:write'];
/** A change that emits events writes them with their deliveries, then puts the deliveries on the queue. */
const emits: Permission[] = [...writes, 'queue:deliveries:send'];
/** A route that creates a webhook signing secret seals it (and one stored in the clear before sealing existed, on its next write). */
const sealsSecrets: Permission[] = [...writes, 'secrets:seal'];
/** A route that removes a resource deletes its item. */
const deletes: Permission[] = [...writes, 'table:delete'];
const deletesAndEmits: Permission[] = [...emits, 'table:delete'];
/** The hosted account-link pages: no API key, no idempotency record or page token, so no account secret. */
const hostedPages: Permission[] = [...reads, 'table:write', 'queue:deliveries:send'];
/** Metering stores its work, then puts it on the meter-events queue. */
const meters: Permission[] = [...writes, 'queue:meter-events:send'];

/**
 * The map of the API. The CDK stateless stack creates one Lambda function and one API Gateway route per
 * entry; the local gateway serves the very same handler modules from this table. Nothing else lists routes.
 *
 * Paths use API Gateway's `{param}` syntax. `handler` is the entry file relative to the repository root
 * and must export `handler`. `permissions` drive the least-privilege grants in the stack.
 */
// biome-ignore format: one route per line is the map of the API
export const routes: Route[] = [
  { name: 'createWebhookEndpoint', method: 'POST', path: '/v1/webhook_endpoints', handler: 'functions/http/v1/webhook-endpoints/create.ts', permissions: sealsSecrets },
  { name: 'listWebhookEndpoints', method: 'GET', path: '/v1/webhook_endpoints', handler: 'functions/http/v1/webhook-endpoints/list.ts', permissions: reads },
  { name: 'retrieveWebhookEndpoint', method: 'GET', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/retrieve.ts', permissions: reads },
  { name: 'updateWebhookEndpoint', method: 'POST', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/update.ts', permissions: sealsSecrets },
  { name: 'deleteWebhookEndpoint', method: 'DELETE', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/delete.ts', permissions: deletes },

  { name: 'createCustomer', method: 'POST', path: '/v1/customers', handler: 'functions/http/v1/customers/create.ts', permissions: emits },
  { name: 'listCustomers', method: 'GET', path: '/v1/customers', handler: 'functions/http/v1/customers/list.ts', permissions: reads },
  { name: 'searchCustomers', method: 'GET', path: '/v1/customers/search', handler: 'functions/http/v1/customers/search.ts', permissions: pagedReads },
  { name: 'retrieveCustomer', method: 'GET', path: '/v1/customers/{id}', handler: 'functions/http/v1/customers/retrieve.ts', permissions: reads },
  // `source` replaces the default source: the old one is deleted.
  { name: 'updateCustomer', method: 'POST', path: '/v1/customers/{id}', handler: 'functions/http/v1/customers/update.ts', permissions: deletesAndEmits },
  { name: 'deleteCustomer', method: 'DELETE', path: '/v1/customers/{id}', handler: 'functions/http/v1/customers/delete.ts', permissions: deletesAndEmits },
  { name: 'listCustomerSources', method: 'GET', path: '/v1/customers/{id}/sources', handler: 'functions/http/v1/customers/sources/list.ts', permissions: reads },
  { name: 'createCustomerSource', method: 'POST', path: '/v1/customers/{id}/sources', handler: 'functions/http/v1/customers/sources/create.ts', permissions: emits },
  { name: 'retrieveCustomerSource', method: 'GET', path: '/v1/customers/{id}/sources/{source_id}', handler: 'functions/http/v1/customers/sources/retrieve.ts', permissions: reads },
  { name: 'updateCustomerSource', method: 'POST', path: '/v1/customers/{id}/sources/{source_id}', handler: 'functions/http/v1/customers/sources/update.ts', permissions: emits },
  { name: 'deleteCustomerSource', method: 'DELETE', path: '/v1/customers/{id}/sources/{source_id}', handler: 'functions/http/v1/customers/sources/delete.ts', permissions: deletesAndEmits },
  { name: 'verifyCustomerSource', method: 'POST', path: '/v1/customers/{id}/sources/{source_id}/verify', handler: 'functions/http/v1/customers/sources/verify.ts', permissions: emits },

  { name: 'createIssuingCardholder', method: 'POST', path: '/v1/issuing/cardholders', handler: 'functions/http/v1/issuing/cardholders/create.ts', permissions: emits },
  { name: 'listIssuingCardholders', method: 'GET', path: '/v1/issuing/cardholders', handler: 'functions/http/v1/issuing/cardholders/list.ts', permissions: reads },
  { name: 'retrieveIssuingCardholder', method: 'GET', path: '/v1/issuing/cardholders/{id}', handler: 'functions/http/v1/issuing/cardholders/retrieve.ts', permissions: reads },
  { name: 'updateIssuingCardholder', method: 'POST', path: '/v1/issuing/cardholders/{id}', handler: 'functions/http/v1/issuing/cardholders/update.ts', permissions: emits },
  { name: 'createIssuingCard', method: 'POST', path: '/v1/issuing/cards', handler: 'functions/http/v1/issuing/cards/create.ts', permissions: emits },
  { name: 'listIssuingCards', method: 'GET', path: '/v1/issuing/cards', handler: 'functions/http/v1/issuing/cards/list.ts', permissions: reads },
  { name: 'retrieveIssuingCard', method: 'GET', path: '/v1/issuing/cards/{id}', handler: 'functions/http/v1/issuing/cards/retrieve.ts', permissions: reads },
  { name: 'updateIssuingCard', method: 'POST', path: '/v1/issuing/cards/{id}', handler: 'functions/http/v1/issuing/cards/update.ts', permissions: emits },
  { name: 'listIssuingAuthorizations', method: 'GET', path: '/v1/issuing/authorizations', handler: 'functions/http/v1/issuing/authorizations/list.ts', permissions: reads },
  { name: 'retrieveIssuingAuthorization', method: 'GET', path: '/v1/issuing/authorizations/{id}', handler: 'functions/http/v1/issuing/authorizations/retrieve.ts', permissions: reads },
  { name: 'updateIssuingAuthorization', method: 'POST', path: '/v1/issuing/authorizations/{id}', handler: 'functions/http/v1/issuing/authorizations/update.ts', permissions: emits },
  // Deprecated in the reference; they answer a pending request, which no authorization here has (400).
  { name: 'approveIssuingAuthorization', method: 'POST', path: '/v1/issuing/authorizations/{id}/approve', handler: 'functions/http/v1/issuing/authorizations/approve.ts', permissions: writes },
  { name: 'declineIssuingAuthorization', method: 'POST', path: '/v1/issuing/authorizations/{id}/decline', handler: 'functions/http/v1/issuing/authorizations/decline.ts', permissions: writes },
  { name: 'listIssuingTransactions', method: 'GET', path: '/v1/issuing/transactions', handler: 'functions/http/v1/issuing/transactions/list.ts', permissions: reads },
  { name: 'retrieveIssuingTransaction', method: 'GET', path: '/v1/issuing/transactions/{id}', handler: 'functions/http/v1/issuing/transactions/retrieve.ts', permissions: reads },
  { name: 'updateIssuingTransaction', method: 'POST', path: '/v1/issuing/transactions/{id}', handler: 'functions/http/v1/issuing/transactions/update.ts', permissions: emits },
  // Test helpers (test mode only): they play the card network's part on an authorization.
  { name: 'createTestIssuingAuthorization', method: 'POST', path: '/v1/test_helpers/issuing/authorizations', handler: 'functions/http/v1/test-helpers/issuing/authorizations/create.ts', permissions: emits },
  { name: 'captureTestIssuingAuthorization', method: 'POST', path: '/v1/test_helpers/issuing/authorizations/{id}/capture', handler: 'functions/http/v1/test-helpers/issuing/authorizations/capture.ts', permissions: emits },
  { name: 'expireTestIssuingAuthorization', method: 'POST', path: '/v1/test_helpers/issuing/authorizations/{id}/expire', handler: 'functions/http/v1/test-helpers/issuing/authorizations/expire.ts', permissions: emits },
  { name: 'incrementTestIssuingAuthorization', method: 'POST', path: '/v1/test_helpers/issuing/authorizations/{id}/increment', handler: 'functions/http/v1/test-helpers/issuing/authorizations/increment.ts', permissions: emits },
  { name: 'reverseTestIssuingAuthorization', method: 'POST', path: '/v1/test_helpers/issuing/authorizations/{id}/reverse', handler: 'functions/http/v1/test-helpers/issuing/authorizations/reverse.ts', permissions: emits },
  { name: 'finalizeTestIssuingAuthorizationAmount', method: 'POST', path: '/v1/test_helpers/issuing/authorizations/{id}/finalize_amount', handler: 'functions/http/v1/test-helpers/issuing/authorizations/finalize-amount.ts', permissions: emits },
  { name: 'refundTestIssuingTransaction', method: 'POST', path: '/v1/test_helpers/issuing/transactions/{id}/refund', handler: 'functions/http/v1/test-helpers/issuing/transactions/refund.ts', permissions: emits },
  { name: 'createForceCaptureTestIssuingTransaction', method: 'POST', path: '/v1/test_helpers/issuing/transactions/create_force_capture', handler: 'functions/http/v1/test-helpers/issuing/transactions/create-force-capture.ts', permissions: emits },
  { name: 'createUnlinkedRefundTestIssuingTransaction', method: 'POST', path: '/v1/test_helpers/issuing/transactions/create_unlinked_refund', handler: 'functions/http/v1/test-helpers/issuing/transactions/create-unlinked-refund.ts', permissions: emits },

  // Test clocks (test mode only). Deleting one deletes its customers (canceling their subscriptions); an advance is run by the billing worker.
  { name: 'createTestClock', method: 'POST', path: '/v1/test_helpers/test_clocks', handler: 'functions/http/v1/test-helpers/test-clocks/create.ts', permissions: emits },
  { name: 'listTestClocks', method: 'GET', path: '/v1/test_helpers/test_clocks', handler: 'functions/http/v1/test-helpers/test-clocks/list.ts', permissions: reads },
  { name: 'retrieveTestClock', method: 'GET', path: '/v1/test_helpers/test_clocks/{id}', handler: 'functions/http/v1/test-helpers/test-clocks/retrieve.ts', permissions: reads },
  { name: 'deleteTestClock', method: 'DELETE', path: '/v1/test_helpers/test_clocks/{id}', handler: 'functions/http/v1/test-helpers/test-clocks/delete.ts', permissions: deletesAndEmits },
  { name: 'advanceTestClock', method: 'POST', path: '/v1/test_helpers/test_clocks/{id}/advance', handler: 'functions/http/v1/test-helpers/test-clocks/advance.ts', permissions: [...emits, 'queue:billing:send'] },

  { name: 'createToken', method: 'POST', path: '/v1/tokens', handler: 'functions/http/v1/tokens/create.ts', permissions: writes },
  { name: 'retrieveToken', method: 'GET', path: '/v1/tokens/{id}', handler: 'functions/http/v1/tokens/retrieve.ts', permissions: reads },

  { name: 'createMeter', method: 'POST', path: '/v1/billing/meters', handler: 'functions/http/v1/billing/meters/create.ts', permissions: emits },
  { name: 'listMeters', method: 'GET', path: '/v1/billing/meters', handler: 'functions/http/v1/billing/meters/list.ts', permissions: reads },
  { name: 'retrieveMeter', method: 'GET', path: '/v1/billing/meters/{id}', handler: 'functions/http/v1/billing/meters/retrieve.ts', permissions: reads },
  { name: 'updateMeter', method: 'POST', path: '/v1/billing/meters/{id}', handler: 'functions/http/v1/billing/meters/update.ts', permissions: emits },
  { name: 'deactivateMeter', method: 'POST', path: '/v1/billing/meters/{id}/deactivate', handler: 'functions/http/v1/billing/meters/deactivate.ts', permissions: emits },
  { name: 'reactivateMeter', method: 'POST', path: '/v1/billing/meters/{id}/reactivate', handler: 'functions/http/v1/billing/meters/reactivate.ts', permissions: emits },
  { name: 'listMeterEventSummaries', method: 'GET', path: '/v1/billing/meters/{id}/event_summaries', handler: 'functions/http/v1/billing/meters/event-summaries.ts', permissions: reads },
  { name: 'createBillingAlert', method: 'POST', path: '/v1/billing/alerts', handler: 'functions/http/v1/billing/alerts/create.ts', permissions: writes },
  { name: 'listBillingAlerts', method: 'GET', path: '/v1/billing/alerts', handler: 'functions/http/v1/billing/alerts/list.ts', permissions: reads },
  { name: 'retrieveBillingAlert', method: 'GET', path: '/v1/billing/alerts/{id}', handler: 'functions/http/v1/billing/alerts/retrieve.ts', permissions: reads },
  { name: 'activateBillingAlert', method: 'POST', path: '/v1/billing/alerts/{id}/activate', handler: 'functions/http/v1/billing/alerts/activate.ts', permissions: writes },
  { name: 'deactivateBillingAlert', method: 'POST', path: '/v1/billing/alerts/{id}/deactivate', handler: 'functions/http/v1/billing/alerts/deactivate.ts', permissions: writes },
  { name: 'archiveBillingAlert', method: 'POST', path: '/v1/billing/alerts/{id}/archive', handler: 'functions/http/v1/billing/alerts/archive.ts', permissions: writes },

  // v1 meter events: the v2 routes' service, permissions and rate limits, on the v1 wire.
  { name: 'createV1MeterEvent', method: 'POST', path: '/v1/billing/meter_events', handler: 'functions/http/v1/billing/meter-events/create.ts', permissions: meters },
  { name: 'createV1MeterEventAdjustment', method: 'POST', path: '/v1/billing/meter_event_adjustments', handler: 'functions/http/v1/billing/meter-event-adjustments/create.ts', permissions: meters },

  { name: 'createMeterEvent', method: 'POST', path: '/v2/billing/meter_events', handler: 'functions/http/v2/billing/meter-events/create.ts', permissions: meters },
  { name: 'createMeterEventAdjustment', method: 'POST', path: '/v2/billing/meter_event_adjustments', handler: 'functions/http/v2/billing/meter-event-adjustments/create.ts', permissions: meters },
  { name: 'retrieveMeterEventAdjustment', method: 'GET', path: '/v2/billing/meter_event_adjustments/{id}', handler: 'functions/http/v2/billing/meter-event-adjustments/retrieve.ts', permissions: reads },
  { name: 'createMeterEventSession', method: 'POST', path: '/v2/billing/meter_event_session', handler: 'functions/http/v2/billing/meter-event-session/create.ts', permissions: writes },
  { name: 'createMeterEventStream', method: 'POST', path: '/v2/billing/meter_event_stream', handler: 'functions/http/v2/billing/meter-event-stream/create.ts', permissions: meters },

  { name: 'createProduct', method: 'POST', path: '/v1/products', handler: 'functions/http/v1/products/create.ts', permissions: emits },
  { name: 'listProducts', method: 'GET', path: '/v1/products', handler: 'functions/http/v1/products/list.ts', permissions: reads },
  { name: 'searchProducts', method: 'GET', path: '/v1/products/search', handler: 'functions/http/v1/products/search.ts', permissions: pagedReads },
  { name: 'retrieveProduct', method: 'GET', path: '/v1/products/{id}', handler: 'functions/http/v1/products/retrieve.ts', permissions: reads },
  { name: 'updateProduct', method: 'POST', path: '/v1/products/{id}', handler: 'functions/http/v1/products/update.ts', permissions: emits },
  { name: 'deleteProduct', method: 'DELETE', path: '/v1/products/{id}', handler: 'functions/http/v1/products/delete.ts', permissions: deletesAndEmits },
  { name: 'createPrice', method: 'POST', path: '/v1/prices', handler: 'functions/http/v1/prices/create.ts', permissions: emits },
  { name: 'listPrices', method: 'GET', path: '/v1/prices', handler: 'functions/http/v1/prices/list.ts', permissions: reads },
  { name: 'searchPrices', method: 'GET', path: '/v1/prices/search', handler: 'functions/http/v1/prices/search.ts', permissions: pagedReads },
  { name: 'retrievePrice', method: 'GET', path: '/v1/prices/{id}', handler: 'functions/http/v1/prices/retrieve.ts', permissions: reads },
  // A lookup key given up is deleted.
  { name: 'updatePrice', method: 'POST', path: '/v1/prices/{id}', handler: 'functions/http/v1/prices/update.ts', permissions: deletesAndEmits },

  { name: 'createSubscription', method: 'POST', path: '/v1/subscriptions', handler: 'functions/http/v1/subscriptions/create.ts', permissions: emits },
  { name: 'listSubscriptions', method: 'GET', path: '/v1/subscriptions', handler: 'functions/http/v1/subscriptions/list.ts', permissions: reads },
  { name: 'searchSubscriptions', method: 'GET', path: '/v1/subscriptions/search', handler: 'functions/http/v1/subscriptions/search.ts', permissions: pagedReads },
  { name: 'retrieveSubscription', method: 'GET', path: '/v1/subscriptions/{id}', handler: 'functions/http/v1/subscriptions/retrieve.ts', permissions: reads },
  { name: 'updateSubscription', method: 'POST', path: '/v1/subscriptions/{id}', handler: 'functions/http/v1/subscriptions/update.ts', permissions: deletesAndEmits },
  { name: 'cancelSubscription', method: 'DELETE', path: '/v1/subscriptions/{id}', handler: 'functions/http/v1/subscriptions/cancel.ts', permissions: deletesAndEmits },
  { name: 'migrateSubscription', method: 'POST', path: '/v1/subscriptions/{id}/migrate', handler: 'functions/http/v1/subscriptions/migrate.ts', permissions: emits },
  { name: 'createSubscriptionItem', method: 'POST', path: '/v1/subscription_items', handler: 'functions/http/v1/subscription-items/create.ts', permissions: emits },
  { name: 'listSubscriptionItems', method: 'GET', path: '/v1/subscription_items', handler: 'functions/http/v1/subscription-items/list.ts', permissions: reads },
  { name: 'retrieveSubscriptionItem', method: 'GET', path: '/v1/subscription_items/{id}', handler: 'functions/http/v1/subscription-items/retrieve.ts', permissions: reads },
  { name: 'updateSubscriptionItem', method: 'POST', path: '/v1/subscription_items/{id}', handler: 'functions/http/v1/subscription-items/update.ts', permissions: emits },
  { name: 'deleteSubscriptionItem', method: 'DELETE', path: '/v1/subscription_items/{id}', handler: 'functions/http/v1/subscription-items/delete.ts', permissions: deletesAndEmits },

  { name: 'createInvoiceItem', method: 'POST', path: '/v1/invoiceitems', handler: 'functions/http/v1/invoiceitems/create.ts', permissions: emits },
  { name: 'listInvoiceItems', method: 'GET', path: '/v1/invoiceitems', handler: 'functions/http/v1/invoiceitems/list.ts', permissions: reads },
  { name: 'retrieveInvoiceItem', method: 'GET', path: '/v1/invoiceitems/{id}', handler: 'functions/http/v1/invoiceitems/retrieve.ts', permissions: reads },
  { name: 'updateInvoiceItem', method: 'POST', path: '/v1/invoiceitems/{id}', handler: 'functions/http/v1/invoiceitems/update.ts', permissions: emits },
  { name: 'deleteInvoiceItem', method: 'DELETE', path: '/v1/invoiceitems/{id}', handler: 'functions/http/v1/invoiceitems/delete.ts', permissions: deletesAndEmits },
  { name: 'createInvoice', method: 'POST', path: '/v1/invoices', handler: 'functions/http/v1/invoices/create.ts', permissions: emits },
  { name: 'listInvoices', method: 'GET', path: '/v1/invoices', handler: 'functions/http/v1/invoices/list.ts', permissions: reads },
  { name: 'createInvoicePreview', method: 'POST', path: '/v1/invoices/create_preview', handler: 'functions/http/v1/invoices/create-preview.ts', permissions: writes },
  { name: 'retrieveUpcomingInvoice', method: 'GET', path: '/v1/invoices/upcoming', handler: 'functions/http/v1/invoices/upcoming.ts', permissions: reads },
  { name: 'retrieveInvoice', method: 'GET', path: '/v1/invoices/{id}', handler: 'functions/http/v1/invoices/retrieve.ts', permissions: reads },
  { name: 'updateInvoice', method: 'POST', path: '/v1/invoices/{id}', handler: 'functions/http/v1/invoices/update.ts', permissions: emits },
  { name: 'deleteInvoice', method: 'DELETE', path: '/v1/invoices/{id}', handler: 'functions/http/v1/invoices/delete.ts', permissions: deletesAndEmits },
  { name: 'listInvoiceLines', method: 'GET', path: '/v1/invoices/{id}/lines', handler: 'functions/http/v1/invoices/lines.ts', permissions: reads },
  { name: 'finalizeInvoice', method: 'POST', path: '/v1/invoices/{id}/finalize', handler: 'functions/http/v1/invoices/finalize.ts', permissions: emits },
  { name: 'payInvoice', method: 'POST', path: '/v1/invoices/{id}/pay', handler: 'functions/http/v1/invoices/pay.ts', permissions: emits },
  { name: 'sendInvoice', method: 'POST', path: '/v1/invoices/{id}/send', handler: 'functions/http/v1/invoices/send.ts', permissions: emits },
  { name: 'voidInvoice', method: 'POST', path: '/v1/invoices/{id}/void', handler: 'functions/http/v1/invoices/void.ts', permissions: emits },
  { name: 'markInvoiceUncollectible', method: 'POST', path: '/v1/invoices/{id}/mark_uncollectible', handler: 'functions/http/v1/invoices/mark-uncollectible.ts', permissions: emits },

  { name: 'listEvents', method: 'GET', path: '/v1/events', handler: 'functions/http/v1/events/list.ts', permissions: reads },
  { name: 'retrieveEvent', method: 'GET', path: '/v1/events/{id}', handler: 'functions/http/v1/events/retrieve.ts', permissions: reads },
  /** The reference's command-line tool's `stripe events resend evt_… --webhook-endpoint we_…`: a new delivery, linked to its event, then queued. */
  { name: 'retryEvent', method: 'POST', path: '/v1/events/{id}/retry', handler: 'functions/http/v1/events/retry.ts', permissions: emits },

  { name: 'createEventDestination', method: 'POST', path: '/v2/core/event_destinations', handler: 'functions/http/v2/core/event-destinations/create.ts', permissions: sealsSecrets },
  { name: 'listEventDestinations', method: 'GET', path: '/v2/core/event_destinations', handler: 'functions/http/v2/core/event-destinations/list.ts', permissions: pagedReads },
  { name: 'retrieveEventDestination', method: 'GET', path: '/v2/core/event_destinations/{id}', handler: 'functions/http/v2/core/event-destinations/retrieve.ts', permissions: reads },
  { name: 'updateEventDestination', method: 'POST', path: '/v2/core/event_destinations/{id}', handler: 'functions/http/v2/core/event-destinations/update.ts', permissions: sealsSecrets },
  { name: 'deleteEventDestination', method: 'DELETE', path: '/v2/core/event_destinations/{id}', handler: 'functions/http/v2/core/event-destinations/delete.ts', permissions: deletes },
  { name: 'enableEventDestination', method: 'POST', path: '/v2/core/event_destinations/{id}/enable', handler: 'functions/http/v2/core/event-destinations/enable.ts', permissions: sealsSecrets },
  { name: 'disableEventDestination', method: 'POST', path: '/v2/core/event_destinations/{id}/disable', handler: 'functions/http/v2/core/event-destinations/disable.ts', permissions: sealsSecrets },
  { name: 'pingEventDestination', method: 'POST', path: '/v2/core/event_destinations/{id}/ping', handler: 'functions/http/v2/core/event-destinations/ping.ts', permissions: [...emits, 'table:batch-write'] },

  { name: 'createAccount', method: 'POST', path: '/v2/core/accounts', handler: 'functions/http/v2/core/accounts/create.ts', permissions: emits },
  { name: 'listAccounts', method: 'GET', path: '/v2/core/accounts', handler: 'functions/http/v2/core/accounts/list.ts', permissions: pagedReads },
  { name: 'retrieveAccount', method: 'GET', path: '/v2/core/accounts/{account_id}', handler: 'functions/http/v2/core/accounts/retrieve.ts', permissions: reads },
  { name: 'updateAccount', method: 'POST', path: '/v2/core/accounts/{account_id}', handler: 'functions/http/v2/core/accounts/update.ts', permissions: emits },
  { name: 'closeAccount', method: 'POST', path: '/v2/core/accounts/{account_id}/close', handler: 'functions/http/v2/core/accounts/close.ts', permissions: emits },
  { name: 'createPerson', method: 'POST', path: '/v2/core/accounts/{account_id}/persons', handler: 'functions/http/v2/core/accounts/persons/create.ts', permissions: emits },
  { name: 'listPersons', method: 'GET', path: '/v2/core/accounts/{account_id}/persons', handler: 'functions/http/v2/core/accounts/persons/list.ts', permissions: pagedReads },
  { name: 'retrievePerson', method: 'GET', path: '/v2/core/accounts/{account_id}/persons/{id}', handler: 'functions/http/v2/core/accounts/persons/retrieve.ts', permissions: reads },
  { name: 'updatePerson', method: 'POST', path: '/v2/core/accounts/{account_id}/persons/{id}', handler: 'functions/http/v2/core/accounts/persons/update.ts', permissions: emits },
  { name: 'deletePerson', method: 'DELETE', path: '/v2/core/accounts/{account_id}/persons/{id}', handler: 'functions/http/v2/core/accounts/persons/delete.ts', permissions: deletesAndEmits },
  /** Account and person tokens: creation also takes a publishable key (the only routes besides POST /v1/tokens). */
  { name: 'createAccountToken', method: 'POST', path: '/v2/core/account_tokens', handler: 'functions/http/v2/core/account-tokens/create.ts', permissions: writes },
  { name: 'retrieveAccountToken', method: 'GET', path: '/v2/core/account_tokens/{id}', handler: 'functions/http/v2/core/account-tokens/retrieve.ts', permissions: reads },
  { name: 'createPersonToken', method: 'POST', path: '/v2/core/accounts/{account_id}/person_tokens', handler: 'functions/http/v2/core/accounts/person-tokens/create.ts', permissions: writes },
  { name: 'retrievePersonToken', method: 'GET', path: '/v2/core/accounts/{account_id}/person_tokens/{id}', handler: 'functions/http/v2/core/accounts/person-tokens/retrieve.ts', permissions: reads },

  { name: 'createAccountLink', method: 'POST', path: '/v2/core/account_links', handler: 'functions/http/v2/core/account-links/create.ts', permissions: emits },
  /** The v1 shape of the same link: one store, one hosted flow. */
  { name: 'createV1AccountLink', method: 'POST', path: '/v1/account_links', handler: 'functions/http/v1/account-links/create.ts', permissions: emits },
  /**
   * The hosted flow behind an account link: HTML pages, no API key (the link's secret is in the path). A first
   * visit with nothing left to collect completes the link, which emits v2.core.account_link.returned.
   */
  { name: 'showAccountLink', method: 'GET', path: '/hosted/account_links/{secret}', handler: 'functions/http/hosted/account-links/show.ts', permissions: hostedPages },
  { name: 'submitAccountLink', method: 'POST', path: '/hosted/account_links/{secret}', handler: 'functions/http/hosted/account-links/submit.ts', permissions: hostedPages },

  /** This API's OpenAPI document: no API key, no table call. */
  { name: 'retrieveOpenApiDocument', method: 'GET', path: '/openapi.json', handler: 'functions/http/openapi.ts', permissions: [] },

  { name: 'listThinEvents', method: 'GET', path: '/v2/core/events', handler: 'functions/http/v2/core/events/list.ts', permissions: pagedReads },
  { name: 'retrieveThinEvent', method: 'GET', path: '/v2/core/events/{id}', handler: 'functions/http/v2/core/events/retrieve.ts', permissions: reads },

  /**
   * This service's additions, under a prefix of its own (`/v2/service/`, a namespace the reference API does
   * not use): delivery attempts by event and by destination, and resending an event.
   */
  { name: 'listEventDeliveries', method: 'GET', path: '/v2/service/events/{id}/deliveries', handler: 'functions/http/v2/service/events/deliveries.ts', permissions: reads },
  { name: 'resendEvent', method: 'POST', path: '/v2/service/events/{id}/resend', handler: 'functions/http/v2/service/events/resend.ts', permissions: emits },
  { name: 'listEventDestinationDeliveries', method: 'GET', path: '/v2/service/event_destinations/{id}/deliveries', handler: 'functions/http/v2/service/event-destinations/deliveries.ts', permissions: pagedReads },
  { name: 'listWebhookEndpointDeliveries', method: 'GET', path: '/v2/service/webhook_endpoints/{id}/deliveries', handler: 'functions/http/v2/service/webhook-endpoints/deliveries.ts', permissions: pagedReads },
];

/** Answers every request no route matches: 405 when the path exists with other methods, else 404. */
export const fallbackRoute = {
  name: 'unmatchedRequest',
  handler: 'functions/http/fallback.ts',
  permissions: [] as Permission[],
};

/** A queue consumer: gets SQS batch events and answers with partial batch failures. */
export interface QueueWorker {
  name: string;
  queue: QueueName;
  handler: string;
  permissions: Permission[];
  /** Messages per invocation; Lambda takes up to 10,000 with a batching window, the local stack at most 10 per receive. @default 10 */
  batchSize?: number;
  /** Seconds Lambda may wait to fill a batch; 0 invokes as soon as messages arrive (latency matters). @default 0 */
  maxBatchingWindowSeconds?: number;
  /**
   * Invocations Lambda runs at once for the queue (2 to 1,000): a backlog then drains at a bounded rate
   * instead of taking the account's concurrency and the table's capacity from the API.
   */
  maxConcurrency: number;
}

export const queueWorkers: QueueWorker[] = [
  /**
   * Turns a change's fan-out into its deliveries (removing the fan-out record), or sends one delivery
   * (webhook POST, EventBridge put or Event Grid post) and records the attempt.
   */
  {
    name: 'deliverEvent',
    queue: 'deliveries',
    handler: 'functions/queues/deliver-event.ts',
    // It signs webhooks: the one function that opens sealed signing secrets.
    permissions: ['table:read', 'table:write', 'table:delete', 'queue:deliveries:send', 'bus:put', 'secrets:open'],
    batchSize: 10,
    maxConcurrency: 50,
  },
  /** Counts meter events, stream batches and cancellations into usage, aggregated per batch. */
  {
    name: 'processMeterEvents',
    queue: 'meter-events',
    handler: 'functions/queues/process-meter-events.ts',
    permissions: ['table:read', 'table:write'],
    batchSize: 100,
    maxBatchingWindowSeconds: 1,
    maxConcurrency: 50,
  },
  /** Runs the due work a message points at now: a test clock's advance (deleting customers and clocks, emitting their events). */
  {
    name: 'runBilling',
    queue: 'billing',
    handler: 'functions/queues/run-billing.ts',
    permissions: ['table:read', 'table:write', 'table:delete', 'queue:deliveries:send'],
    batchSize: 10,
    maxConcurrency: 10,
  },
];

/** A function run on a fixed schedule (an EventBridge rule on AWS, a timer in the local stack). */
export interface ScheduledJob {
  name: string;
  handler: string;
  /** Minutes between runs. */
  everyMinutes: number;
  permissions: Permission[];
}

export const scheduledJobs: ScheduledJob[] = [
  /** The outbox sweeper: re-enqueues deliveries that are due but not on the queue (crash, long backoff). */
  {
    name: 'sweepDeliveries',
    handler: 'functions/schedules/sweep-deliveries.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write', 'queue:deliveries:send'],
  },
  /** Re-queues stored meter work whose message was lost (accepted events, stream batches, cancellations). */
  {
    name: 'sweepMeterWork',
    handler: 'functions/schedules/sweep-meter-work.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write', 'queue:meter-events:send'],
  },
  /** Reports closed meter error windows as thin events. */
  {
    name: 'reportMeterErrors',
    handler: 'functions/schedules/report-meter-errors.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write', 'queue:deliveries:send'],
  },
  /** Fires billing alerts whose customer's usage reached their threshold (reads usage; writes only a firing). */
  {
    name: 'evaluateBillingAlerts',
    handler: 'functions/schedules/evaluate-billing-alerts.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write', 'queue:deliveries:send'],
  },
  /** Invoices subscriptions early whose usage reached their billing thresholds (reads usage; writes only a threshold invoice). */
  {
    name: 'evaluateBillingThresholds',
    handler: 'functions/schedules/evaluate-billing-thresholds.ts',
    everyMinutes: 1,
    // As the billing worker's: a threshold invoice is written, charged and its events sent like a renewal's.
    permissions: ['table:read', 'table:write', 'table:delete', 'queue:deliveries:send'],
  },
  /** Rolls the hour rollups of the usage partitions metered subscription items registered, daily each. */
  {
    name: 'rollUsage',
    handler: 'functions/schedules/roll-usage.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write'],
  },
  /** The due engine: billing objects due on the stack's clock, test clock advances left unfinished, and expired test clocks. */
  {
    name: 'sweepBilling',
    handler: 'functions/schedules/sweep-billing.ts',
    everyMinutes: 1,
    permissions: ['table:read', 'table:write', 'queue:billing:send'],
  },
];
