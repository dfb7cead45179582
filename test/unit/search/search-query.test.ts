import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import peggy from 'peggy';
import { describe, expect, it } from 'vitest';
import type { Customer } from '#shared/customers/customer.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { parseSearchQuery, searchLimits } from '#shared/search/query.ts';
import { customerSearch, priceSearch, productSearch, subscriptionSearch } from '#shared/search/resources.ts';

const at = (seconds: number) => seconds * 1000;

const customer = (fields: Partial<Customer> = {}): Customer =>
  ({ id: 'cus_1', created: at(1_700_000_000), email: 'Amy@Rocket.io', name: 'Jane Doe', phone: null, metadata: { plan: 'Gold' }, ...fields }) as Customer;

const matches = (query: string, object: Customer = customer()) => parseSearchQuery(query, customerSearch).matches(object);

/** The 400 a query answers: its message, and that it names `query`. */
function refusal(query: string, resource = customerSearch): string {
  try {
    parseSearchQuery(query, resource as never);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe('query');
    return (error as Error).message;
  }
  throw new Error(`${query} was accepted`);
}

/** A value written as the query language quotes it: single quotes, backslash before a quote or backslash. */
const quoted = (value: string) => `'${value.replace(/[\\']/g, (char) => `\\${char}`)}'`;

describe('the search query grammar', () => {
  it('is the module peggy generates from query-grammar.peggy (npm run grammar), so the two never drift', () => {
    const file = (name: string) => readFileSync(new URL(`../../../shared/search/${name}`, import.meta.url), 'utf8');
    expect(file('query-grammar.js')).toBe(peggy.generate(file('query-grammar.peggy'), { output: 'source', format: 'es' }));
  });
});

describe('matching a search query', () => {
  it('matches a field exactly and case-insensitively with either quote, as the reference does', () => {
    expect(matches(`name:'Jane Doe'`)).toBe(true);
    expect(matches(`name:"jane doe"`)).toBe(true);
    expect(matches(`email:'amy@rocket.io'`)).toBe(true);
    expect(matches(`name:'Jane'`)).toBe(false);
  });

  it('matches a substring of 3 characters or more with ~', () => {
    expect(matches(`email~'rocket'`)).toBe(true);
    expect(matches(`name~"ANE D"`)).toBe(true);
    expect(matches(`name~'xyz'`)).toBe(false);
  });

  it('matches metadata by key, null for an absent field or key, and - for the opposite', () => {
    expect(matches(`metadata['plan']:'gold'`)).toBe(true);
    expect(matches(`metadata["plan"]:"Silver"`)).toBe(false);
    expect(matches(`metadata['other']:null`)).toBe(true);
    expect(matches(`-metadata['plan']:null`)).toBe(true);
    expect(matches(`phone:null`)).toBe(true);
    expect(matches(`-phone:null`)).toBe(false);
    expect(matches(`-name:'Jane Doe'`)).toBe(false);
    expect(matches(`-name:'Bob'`)).toBe(true);
  });

  it('joins clauses with AND (also a space alone) or OR, in any case', () => {
    expect(matches(`name:'Jane Doe' AND metadata['plan']:'Gold'`)).toBe(true);
    expect(matches(`name:'Jane Doe' metadata['plan']:'Silver'`)).toBe(false);
    expect(matches(`name:'Bob' or metadata['plan']:'Gold'`)).toBe(true);
    expect(matches(`name:'Bob' OR email:'bob@x.io'`)).toBe(false);
  });

  it('compares numbers on created, in Unix seconds, and narrows the creation window of AND queries only', () => {
    expect(matches(`created>1699999999 AND created<=1700000000`)).toBe(true);
    expect(matches(`created>1700000000`)).toBe(false);
    expect(matches(`created:"1700000000"`)).toBe(true);
    expect(parseSearchQuery(`created>=10 created<20 name:'x'`, customerSearch).created).toEqual({ from: at(10), to: at(20) - 1 });
    expect(parseSearchQuery(`created:10`, customerSearch).created).toEqual({ from: at(10), to: at(10) + 999 });
    expect(parseSearchQuery(`created>10 OR name:'x'`, customerSearch).created).toEqual({});
    expect(parseSearchQuery(`-created>10`, customerSearch).created).toEqual({});
  });

  it('takes each resource’s own fields: booleans and tokens on products and prices, status on subscriptions', () => {
    const product = { created: at(1), active: false, shippable: null, description: null, name: 'Gold', url: 'https://x.io/gold', metadata: {} };
    expect(parseSearchQuery(`active:'false' AND shippable:null AND url~'x.io'`, productSearch).matches(product as never)).toBe(true);
    expect(parseSearchQuery(`active:true`, productSearch).matches(product as never)).toBe(false);
    const price = { created: at(1), active: true, currency: 'usd', lookupKey: 'gold_monthly', product: 'prod_1', type: 'recurring', metadata: {} };
    expect(parseSearchQuery(`currency:'USD' type:'recurring' lookup_key~'month' product:'prod_1'`, priceSearch).matches(price as never)).toBe(true);
    expect(parseSearchQuery(`-status:'canceled'`, subscriptionSearch).matches({ created: at(1), status: 'active', metadata: {} } as never)).toBe(true);
  });

  it('takes a value with escaped quotes and backslashes', () => {
    expect(matches(`name:'O\\'Brien \\\\ Co'`, customer({ name: "O'Brien \\ Co" }))).toBe(true);
    expect(matches(`name:"say \\"hi\\""`, customer({ name: 'say "hi"' }))).toBe(true);
  });
});

describe('refusing a bad search query with the position and the text of the offending part', () => {
  it('points at a syntax error', () => {
    expect(refusal(`name:Jane`)).toBe(`Invalid search query at character 6 ('Jane'): expected a quoted value, a number or null.`);
    expect(refusal(`name:'Jane`)).toBe(`Invalid search query at character 6 (''Jane'): this quote is never closed.`);
    expect(refusal(`name:'Jane' AND`)).toBe('Invalid search query at character 16 (end of query): expected a field name.');
    expect(refusal(`(name:'Jane')`)).toBe(`Invalid search query at character 1 ('(name:'Jane')'): expected a field name.`);
    expect(refusal('')).toBe('Invalid search query at character 1 (end of query): expected a field name.');
  });

  it('refuses AND and OR in one query, as the reference does (it has no parentheses)', () => {
    expect(refusal(`name:'a' OR email:'b' AND phone:'c'`)).toMatch(/^Invalid search query at character 23 \('AND'\): AND and OR cannot be combined/);
    expect(refusal(`name:'a' OR email:'b' phone:'c'`)).toMatch(/^Invalid search query at character 23 \('phone:'c''\): AND and OR cannot be combined/);
  });

  it('refuses unknown fields, operators and values a field does not take, and short substrings', () => {
    expect(refusal(`status:'active'`)).toBe(
      `Invalid search query at character 1 ('status:'active''): status is not a query field of customers; use created, email, metadata['key'], name or phone.`,
    );
    expect(refusal(`name>'a'`)).toMatch(/character 5 .*name is a string field; it takes : or ~, not >\./);
    expect(refusal(`currency~'usd'`, priceSearch as never)).toMatch(/currency is a token field; it takes :, not ~/);
    expect(refusal(`email~'ab'`)).toMatch(/character 7 \(''ab''\): a substring match \(~\) needs at least 3 characters/);
    expect(refusal(`created>'soon'`)).toMatch(/created takes a number/);
    for (const notPlain of [`'0x10'`, `'1e3'`, `' 5'`, `''`, 'true']) expect(refusal(`created>${notPlain}`)).toMatch(/created takes a number/);
    expect(refusal(`created>1.5`)).toMatch(/created takes a Unix timestamp in whole seconds/);
    expect(refusal(`active:'yes'`, productSearch as never)).toMatch(/active takes true or false/);
    expect(refusal(`name~null`)).toMatch(/null takes the : operator/);
    expect(refusal(`metadata['a']~'abc'`)).toMatch(/metadata is matched exactly/);
  });

  it('refuses more than 10 clauses, a value over 1,000 characters and a query over 4,096', () => {
    expect(refusal(Array.from({ length: 11 }, () => `name:'a'`).join(' '))).toMatch(/^Invalid search query at character 91 .*at most 10 clauses/);
    expect(refusal(`name:'${'a'.repeat(2_990)}'`)).toMatch(/^Invalid search query at character 6 \(''a{29}…'\): a value is at most 1000 characters long\.$/);
    expect(refusal('x'.repeat(searchLimits.queryLength + 1))).toBe('The search query is 4097 characters long; at most 4096 are accepted.');
  });
});

describe('search queries, property-based', () => {
  const names = fc.constantFrom('Jane Doe', 'jane', 'Bob', "O'Brien", 'Zoë', 'a\\b', 'x"y');
  const customers = fc.record({
    name: fc.option(names, { nil: null }),
    email: fc.option(fc.constantFrom('amy@rocket.io', 'bob@x.io'), { nil: null }),
    created: fc.integer({ min: 0, max: 4_000_000_000 }).map(at),
    plan: fc.option(fc.constantFrom('Gold', 'Silver'), { nil: undefined }),
  });
  const clauses = fc.oneof(
    names.map((name) => `name:${quoted(name)}`),
    fc.constantFrom(`email~'rocket'`, `email:null`, `metadata['plan']:'gold'`, `metadata['plan']:null`, `phone:null`),
    fc
      .tuple(fc.constantFrom('>', '<', '>=', '<=', ':'), fc.integer({ min: 0, max: 4_000_000_000 }))
      .map(([operator, seconds]) => `created${operator}${seconds}`),
  );
  const toCustomer = (fields: { name: string | null; email: string | null; created: number; plan?: string }) =>
    customer({ name: fields.name, email: fields.email, created: fields.created, metadata: fields.plan ? { plan: fields.plan } : {} });

  it('an AND query matches what every clause matches, an OR query what any does, and - the opposite', () => {
    fc.assert(
      fc.property(
        fc.array(clauses, { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        customers,
        (parts, negate, fields) => {
          const object = toCustomer(fields);
          const signed = parts.map((part, i) => (negate[i] ? `-${part}` : part));
          const each = signed.map((part) => matches(part, object));
          expect(matches(signed.join(' AND '), object)).toBe(each.every(Boolean));
          expect(matches(signed.join(' '), object)).toBe(each.every(Boolean));
          expect(matches(signed.join(' OR '), object)).toBe(each.some(Boolean));
          expect(matches(`-${parts[0]}`, object)).toBe(!matches(parts[0]!, object));
        },
      ),
    );
  });

  it('never leaves out of the creation window an object the query matches (the window only narrows the read)', () => {
    fc.assert(
      fc.property(fc.array(clauses, { minLength: 1, maxLength: 10 }), customers, (parts, fields) => {
        const object = toCustomer(fields);
        const query = parseSearchQuery(parts.join(' '), customerSearch);
        if (!query.matches(object)) return;
        expect(object.created).toBeGreaterThanOrEqual(query.created.from ?? -Infinity);
        expect(object.created).toBeLessThanOrEqual(query.created.to ?? Infinity);
      }),
    );
  });

  it('finds any name by exact match, however it is quoted', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (name) => {
        expect(matches(`name:${quoted(name)}`, customer({ name }))).toBe(true);
      }),
    );
  });

  it('answers any text with a query or a 400 on query, never another error', () => {
    const alphabet = fc.constantFrom(...`ab:~<>=-'"\\[] ANDORnullmetadatacreatedname01.`.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: alphabet, maxLength: 60 })), (text) => {
        try {
          parseSearchQuery(text, customerSearch);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRequestError);
          expect((error as InvalidRequestError).param).toBe('query');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
