import * as z from 'zod';
import { metadataObject, nullableString, unixTime } from '#shared/wire/objects.ts';

export const cardObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('card').describe("String representing the object's type. Objects of the same type share the same value."),
    account: z
      .null()
      .describe(
        'The account this card belongs to. Only applicable on Accounts (not customers or recipients) This property is only available when returned as an External Account where controller.is_controller is `true`.',
      ),
    address_city: nullableString.describe('City/District/Suburb/Town/Village.'),
    address_country: nullableString.describe('Billing address country, if provided when creating card.'),
    address_line1: nullableString.describe('Address line 1 (Street address/PO Box/Company name).'),
    address_line1_check: z
      .enum(['unchecked'])
      .nullable()
      .describe('If `address_line1` was provided, results of the check: `pass`, `fail`, `unavailable`, or `unchecked`.'),
    address_line2: nullableString.describe('Address line 2 (Apartment/Suite/Unit/Building).'),
    address_state: nullableString.describe('State/County/Province/Region.'),
    address_zip: nullableString.describe('ZIP or postal code.'),
    address_zip_check: z
      .enum(['unchecked'])
      .nullable()
      .describe('If `address_zip` was provided, results of the check: `pass`, `fail`, `unavailable`, or `unchecked`.'),
    allow_redisplay: z
      .literal('unspecified')
      .describe(
        'This field indicates whether this payment method can be shown again to its customer in a checkout flow. products such as Checkout and Elements use this field to determine whether a payment method can be shown as a saved payment method in a checkout flow.',
      ),
    available_payout_methods: z
      .null()
      .describe('A set of available payout methods for this card. Only values from this set should be passed as the `method` when creating a payout.'),
    brand: z
      .enum(['Visa', 'MasterCard', 'American Express', 'Discover', 'Diners Club', 'JCB', 'UnionPay', 'Unknown'])
      .describe(
        'Card brand. Can be `American Express`, `Cartes Bancaires`, `Diners Club`, `Discover`, `Eftpos Australia`, `Girocard`, `JCB`, `MasterCard`, `UnionPay`, `Visa`, or `Unknown`.',
      ),
    country: nullableString.describe('Two-letter country code (ISO 3166-1 alpha-2).'),
    currency: nullableString.describe('Three-letter ISO code for currency in lowercase. Must be a supported currency.'),
    customer: nullableString.describe(
      'The customer that this card belongs to. This attribute will not be in the card object if the card belongs to an account or recipient instead.',
    ),
    cvc_check: z.enum(['unchecked']).nullable().describe('If a CVC was provided, results of the check: `pass`, `fail`, `unavailable`, or `unchecked`.'),
    default_for_currency: z.null().describe('Whether this card is the default external account for its currency.'),
    dynamic_last4: z.null().describe('(For tokenized numbers only.) The last four digits of the device account number.'),
    exp_month: z.int().describe("Two-digit number representing the card's expiration month."),
    exp_year: z.int().describe("Four-digit number representing the card's expiration year."),
    fingerprint: z
      .string()
      .describe(
        "Uniquely identifies this particular card number. You can use this attribute to check whether two customers who've signed up with you are using the same card number, for example.",
      ),
    funding: z.enum(['credit', 'debit', 'prepaid', 'unknown']).describe('Card funding type. Can be `credit`, `debit`, `prepaid`, or `unknown`.'),
    last4: z.string().describe('The last four digits of the card.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    name: nullableString.describe('Cardholder name.'),
    networks: z
      .object({
        preferred: nullableString.describe(
          'The preferred network for co-branded cards. Can be `cartes_bancaires`, `mastercard`, `visa` or `invalid_preference` if requested network is not valid for the card.',
        ),
      })
      .describe('Contains information about card networks used to process the payment.'),
    regulated_status: z.null().describe('Status of a card based on the card issuer.'),
    status: z.null().describe('For external accounts that are cards, possible values are `new` and `errored`.'),
    tokenization_method: z.null().describe('If the card number is tokenized, this is the method that was used.'),
  })
  .meta({ id: 'Card' });

export const bankAccountObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('bank_account').describe("String representing the object's type. Objects of the same type share the same value."),
    account_holder_name: nullableString.describe('The name of the person or business that owns the bank account.'),
    account_holder_type: z
      .enum(['company', 'individual'])
      .nullable()
      .describe('The type of entity that holds the account. This can be either `individual` or `company`.'),
    account_type: z
      .enum(['checking', 'futsu', 'savings', 'toza'])
      .nullable()
      .describe('The bank account type. This can only be `checking` or `savings` in most countries.'),
    bank_name: z.null().describe('Name of the bank associated with the routing number (e.g., `WELLS FARGO`).'),
    country: z.string().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
    currency: z.string().describe('Three-letter ISO code for the currency paid out to the bank account.'),
    /** Attached to a customer only. */
    customer: z.string().optional().describe('The ID of the customer that the bank account is associated with. Attached to a customer only.'),
    fingerprint: z
      .string()
      .describe('Uniquely identifies this particular bank account. You can use this attribute to check whether two bank accounts are the same.'),
    last4: z.string().describe('The last four digits of the bank account number.'),
    /** Attached to a customer only. */
    metadata: metadataObject.optional().describe('Set of key-value pairs that you can attach to an object. Attached to a customer only.'),
    routing_number: nullableString.describe('The routing transit number for the bank account.'),
    status: z
      .enum(['new', 'verified'])
      .describe(
        'For bank accounts, possible values are `new`, `validated`, `verified`, `verification_failed`, `tokenized_account_number_deactivated` or `errored`.',
      ),
  })
  .meta({ id: 'BankAccount' });

export const tokenObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('token').describe("String representing the object's type. Objects of the same type share the same value."),
    bank_account: bankAccountObject.optional().describe('The bank account the token stands for (`type: bank_account`).'),
    card: cardObject.optional().describe('The card the token stands for (`type: card`).'),
    client_ip: nullableString.describe('IP address of the client that generates the token.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    type: z
      .enum(['card', 'bank_account', 'cvc_update', 'person', 'pii', 'account'])
      .describe('Type of the token: `account`, `bank_account`, `card`, or `pii`.'),
    used: z.boolean().describe('Determines if you have already used this token (you can only use tokens once).'),
  })
  .meta({ id: 'Token' });
