import * as z from 'zod';
import { deletedTestClockObject, testClockObject } from '#shared/test-clocks/objects.ts';
import { addressObject, deletedObject, metadataObject, unixTime } from '#shared/wire/objects.ts';
import { v1ListObject } from '#shared/wire/pagination.ts';
import { bankAccountObject, cardObject } from '#shared/tokens/objects.ts';

/** A source's or a subscription's customer: its id, or (expanded) the customer, or the reference's deleted customer. */
export const customerOrIdObject = () => z.union([z.string(), customerObject, deletedCustomerObject]);

export const sourceObject = z
  .discriminatedUnion('object', [
    cardObject.extend({
      get customer() {
        return customerOrIdObject().nullable().describe('The customer that this card belongs to, or the customer when expanded.');
      },
    }),
    bankAccountObject.extend({
      get customer() {
        return customerOrIdObject()
          .optional()
          .describe('The ID of the customer that the bank account is associated with, or the customer when expanded. Attached to a customer only.');
      },
    }),
  ])
  .meta({ id: 'CustomerSource' });

export const deletedSourceObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.enum(['card', 'bank_account']).describe("String representing the object's type. Objects of the same type share the same value."),
    deleted: z.literal(true).describe('Always true for a deleted object.'),
  })
  .meta({ id: 'DeletedCustomerSource' });

export const customerObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('customer').describe("String representing the object's type. Objects of the same type share the same value."),
    address: addressObject.nullable().describe("The customer's billing address."),
    balance: z.int().describe("The current balance, if any, that's stored on the customer in their default currency."),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z.null().describe('Three-letter ISO code for the currency the customer can be charged in for recurring billing purposes.'),
    /** The source's id, or the source when expanded. */
    get default_source() {
      return z
        .union([z.string(), sourceObject])
        .nullable()
        .describe("ID of the default payment source for the customer. The source's id, or the source when expanded.");
    },
    delinquent: z.boolean().describe('Tracks the most recent state change on any invoice belonging to the customer.'),
    description: z.string().nullable().describe('An arbitrary string attached to the object. Often useful for displaying to users.'),
    discount: z.null().describe('Describes the current discount active on the customer, if there is one.'),
    email: z.string().nullable().describe("The customer's email address."),
    invoice_prefix: z.string().describe('The prefix for the customer used to generate unique invoice numbers.'),
    invoice_settings: z
      .object({
        custom_fields: z.null().describe('Default custom fields to be displayed on invoices for this customer.'),
        default_payment_method: z
          .null()
          .describe(
            "ID of a payment method that's attached to the customer, to be used as the customer's default payment method for subscriptions and invoices.",
          ),
        footer: z.null().describe('Default footer to be displayed on invoices for this customer.'),
        rendering_options: z.null().describe('Default options for invoice PDF rendering for this customer.'),
      })
      .describe('Default invoice settings for this customer.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    name: z.string().nullable().describe("The customer's full name or business name."),
    next_invoice_sequence: z.int().describe("The suffix of the customer's next invoice number (for example, 0001)."),
    phone: z.string().nullable().describe("The customer's phone number."),
    preferred_locales: z.array(z.string()).describe("The customer's preferred locales (languages), ordered by preference."),
    shipping: z
      .object({
        address: addressObject.describe("The customer's billing address."),
        name: z.string().describe('Recipient name.'),
        phone: z.string().nullable().describe('Recipient phone (including extension).'),
      })
      .nullable()
      .describe('Mailing and shipping address for the customer. Appears on invoices emailed to this customer.'),
    /** Only when expanded. */
    get sources() {
      return v1ListObject(sourceObject).optional().describe("The customer's payment sources, if any. Only when expanded.");
    },
    tax_exempt: z.enum(['exempt', 'none', 'reverse']).describe("Describes the customer's tax exemption status, which is `none`, `exempt`, or `reverse`."),
    /** The clock's id, or the clock when expanded. */
    test_clock: z.union([z.string(), testClockObject, deletedTestClockObject]).nullable().describe('ID of the test clock that this customer belongs to.'),
  })
  .meta({ id: 'Customer' });

export const deletedCustomerObject = deletedObject('customer').meta({ id: 'DeletedCustomer' });
