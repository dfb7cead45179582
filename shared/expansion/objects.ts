/**
 * What `expand[]` can reach on this service's v1 objects: each object type declares its fields once, as
 * the reference's SDK types mark them (`string | Object` fields, and fields shown only when expanded).
 * Paths are checked against this table and walked through it; loaders per target type (wiring.ts) read
 * the objects. A field of the reference whose target this service does not have (payment
 * methods, accounts, discounts, tax codes, issuing tokens, disputes, balance transactions,
 * files, personalization designs) is absent here, so asking for it answers "cannot be expanded".
 */
export type ObjectType =
  | 'customer'
  /** A customer's card or bank account (`object` is `card` or `bank_account`). */
  | 'customer_source'
  | 'invoice'
  | 'product'
  | 'price'
  | 'plan'
  | 'subscription'
  | 'subscription_item'
  | 'issuing.authorization'
  | 'issuing.card'
  | 'issuing.cardholder'
  | 'issuing.transaction'
  | 'test_helpers.test_clock';

/** How a field holds its object(s): one object, a list object (`{object: 'list', data: [...]}`), or a plain array. */
export type Shape = 'one' | 'list' | 'array';

/** The types an id field expands to: each has a loader (wiring.ts). */
export type IdTarget =
  | 'customer'
  | 'customer_source'
  | 'invoice'
  | 'product'
  | 'price'
  | 'issuing.authorization'
  | 'issuing.card'
  | 'issuing.cardholder'
  | 'test_helpers.test_clock';

export type FieldDeclaration =
  /** The field holds an id (or null) that expands to the object of type `to`. */
  | { kind: 'id'; to: IdTarget }
  /**
   * The field is shown only when expanded. `to` and `shape` say what it holds, when paths may walk on
   * into it; `topLevelOnly`: only on the response's own object (one read per holder, not batchable).
   */
  | { kind: 'included'; to?: ObjectType; shape?: Shape; topLevelOnly?: boolean }
  /** The field always holds the object(s): paths walk through it; it is not itself expandable. */
  | { kind: 'embedded'; to: ObjectType; shape?: Shape };

const id = (to: IdTarget): FieldDeclaration => ({ kind: 'id', to });
const embedded = (to: ObjectType, shape: Shape = 'one'): FieldDeclaration => ({ kind: 'embedded', to, shape });

export const expandableFields: Record<ObjectType, Readonly<Record<string, FieldDeclaration>>> = {
  customer: {
    default_source: id('customer_source'),
    test_clock: id('test_helpers.test_clock'),
    // One Query per customer: only on a response that is the customer itself.
    sources: { kind: 'included', to: 'customer_source', shape: 'list', topLevelOnly: true },
  },
  customer_source: { customer: id('customer') },
  invoice: {},
  product: { default_price: id('price') },
  price: { product: id('product'), currency_options: { kind: 'included' }, tiers: { kind: 'included' } },
  plan: { product: id('product'), tiers: { kind: 'included' } },
  subscription: {
    customer: id('customer'),
    default_source: id('customer_source'),
    latest_invoice: id('invoice'),
    test_clock: id('test_helpers.test_clock'),
    items: embedded('subscription_item', 'list'),
  },
  subscription_item: { price: embedded('price'), plan: embedded('plan') },
  'issuing.authorization': { card: id('issuing.card'), cardholder: id('issuing.cardholder'), transactions: embedded('issuing.transaction', 'array') },
  'issuing.card': { cardholder: embedded('issuing.cardholder'), replaced_by: id('issuing.card'), replacement_for: id('issuing.card') },
  'issuing.cardholder': {},
  'issuing.transaction': { authorization: id('issuing.authorization'), card: id('issuing.card'), cardholder: id('issuing.cardholder') },
  'test_helpers.test_clock': {},
};

/** The included fields that read something per holder, by `type.field`. */
export type IncludedField = 'customer.sources' | 'price.currency_options' | 'price.tiers' | 'plan.tiers';
