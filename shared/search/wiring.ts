import { dynamoCustomerSearchStore, dynamoPriceSearchStore, dynamoProductSearchStore, dynamoSubscriptionSearchStore } from '#shared/data/owner-search.ts';
import { serviceTable } from '#shared/data/table.ts';
import { customerSearch, priceSearch, productSearch, subscriptionSearch } from './resources.ts';
import { searchService } from './service.ts';

/** Each search on its real adapter; a handler calls its own once at module scope (cold start). */
export const wireCustomerSearch = () => searchService(dynamoCustomerSearchStore(serviceTable()), customerSearch);
export const wireProductSearch = () => searchService(dynamoProductSearchStore(serviceTable()), productSearch);
export const wirePriceSearch = () => searchService(dynamoPriceSearchStore(serviceTable()), priceSearch);
export const wireSubscriptionSearch = () => searchService(dynamoSubscriptionSearchStore(serviceTable()), subscriptionSearch);
