import type { ExpansionLoaders } from './resolver.ts';
import { catalogueLoaders, type CatalogueExpansionPorts } from './loaders/catalogue.ts';
import { customerLoaders, type CustomerExpansionPorts } from './loaders/customers.ts';
import { invoiceLoaders, type InvoiceExpansionPorts } from './loaders/invoices.ts';
import { issuingLoaders, type IssuingExpansionPorts } from './loaders/issuing.ts';
import { mergeLoaderGroups } from './loaders/common.ts';

/** The repositories the loaders read through: each read is a get, and the gets of one turn are one BatchGetItem. */
export type ExpansionPorts = CustomerExpansionPorts & CatalogueExpansionPorts & InvoiceExpansionPorts & IssuingExpansionPorts;

/**
 * The loaders of every expandable type on these repositories (every group of ./loaders/), each rendering
 * through its resource's one serializer. Reads are in the caller's scope: another account's or mode's
 * object is never read. Functions wire only the groups their responses reach (wiring.ts).
 */
export function expansionLoaders(ports: ExpansionPorts): ExpansionLoaders {
  return mergeLoaderGroups([customerLoaders(ports), catalogueLoaders(ports), invoiceLoaders(ports), issuingLoaders(ports)]) as ExpansionLoaders;
}
