import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import type { Invoice } from '#shared/invoices/invoice.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import { type Getter, getAll, idsOf, type LoaderGroup } from './common.ts';

export interface InvoiceExpansionPorts {
  invoices: Getter<Invoice>;
}

/** Invoices. */
export function invoiceLoaders(ports: InvoiceExpansionPorts): LoaderGroup {
  return {
    objects: {
      invoice: async (scope, refs) => (await getAll(ports.invoices, scope, idsOf(refs))).map((invoice) => invoice && serializeInvoice(invoice)),
    },
    included: {},
  };
}

/** The group on the real repositories, for `wireExpander`. */
export const invoiceExpansions = (): LoaderGroup => invoiceLoaders({ invoices: dynamoInvoiceRepository(serviceTable()).invoices });
