import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';

/**
 * Booleans on the wire as every SDK sends them: the official Node SDK sends `true`/`false`, stripe-python
 * before 2025 and stripe-ruby send `True`/`False`, hand-written clients send anything. v1 form bodies and
 * every query string take any case of the two words; v2 JSON bodies take JSON booleans only.
 */
describe('form and query-string booleans in any case', () => {
  let key: string;
  let publishableKey: string;
  let client: Stripe;
  beforeAll(async () => {
    const platform = await newPlatform();
    key = platform.secret_key;
    publishableKey = platform.publishable_key;
    client = sdk(key);
  });

  it('reads True, FALSE and tRuE in a v1 form body, top-level and nested', async () => {
    // When a product is created with Python's casing
    const product = await api('POST', '/v1/products', { key, form: 'name=Cased&active=False&shippable=TRUE' });
    // Then the booleans are read, as the SDK then sees them
    expect(product.status).toBe(200);
    expect(product.body).toMatchObject({ active: false, shippable: true });
    expect(await client.products.retrieve(product.body.id)).toMatchObject({ active: false, shippable: true });

    // When a price creates its product inline with a nested boolean
    const price = await api('POST', '/v1/prices', {
      key,
      form: 'currency=usd&unit_amount=100&product_data[name]=Inline&product_data[active]=fAlSe&active=tRuE&transfer_lookup_key=TRUE&lookup_key=cased',
    });
    expect(price.status).toBe(200);
    expect(price.body).toMatchObject({ active: true, lookup_key: 'cased' });
    expect((await client.products.retrieve(price.body.product)).active).toBe(false);

    // And a token's deeply nested relationship flag takes the same words (publishable key, as browsers send it)
    const token = await api('POST', '/v1/tokens', {
      key: publishableKey,
      form: 'person[first_name]=Ada&person[relationship][owner]=True&person[relationship][director]=FALSE',
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ object: 'token', type: 'person', used: false });
  });

  it('reads any case in a v1 query string, as a list filter', async () => {
    // Given an active and an archived product
    const active = await client.products.create({ name: 'Shown' });
    const archived = await client.products.create({ name: 'Hidden', active: false });
    // When the list is filtered with active=True and active=FALSE
    const onlyActive = await api('GET', '/v1/products?limit=100&active=True', { key });
    const onlyArchived = await api('GET', '/v1/products?limit=100&active=FALSE', { key });
    // Then each filter holds exactly its side
    expect(onlyActive.status).toBe(200);
    const activeIds = onlyActive.body.data.map((product: { id: string }) => product.id);
    expect(activeIds).toContain(active.id);
    expect(activeIds).not.toContain(archived.id);
    const archivedIds = onlyArchived.body.data.map((product: { id: string }) => product.id);
    expect(archivedIds).toContain(archived.id);
    expect(archivedIds).not.toContain(active.id);
  });

  it('refuses yes, 1, a backtick and the empty string with the documented 400 naming the parameter', async () => {
    const refusals: [string, string, string, string][] = [
      ['POST', '/v1/products', 'name=Bad&active=yes', 'active'],
      ['POST', '/v1/products', 'name=Bad&shippable=1', 'shippable'],
      ['POST', '/v1/products', 'name=Bad&active=', 'active'],
      ['POST', '/v1/products', 'name=Bad&active=%60', 'active'],
      ['GET', '/v1/products?active=%60true%60', '', 'active'],
      ['POST', '/v1/prices', 'currency=usd&unit_amount=1&product_data[name]=Bad&product_data[active]=yes', 'product_data[active]'],
      ['POST', '/v1/tokens', 'person[relationship][owner]=1', 'person[relationship][owner]'],
      ['GET', '/v1/products?active=yes', '', 'active'],
      ['GET', '/v1/prices?active=1', '', 'active'],
    ];
    for (const [method, path, form, param] of refusals) {
      const answer = await api(method, path, { key, ...(method === 'POST' ? { form } : {}) });
      expect({ path, form, status: answer.status, error: answer.body.error }).toEqual({
        path,
        form,
        status: 400,
        error: expect.objectContaining({ type: 'invalid_request_error', code: 'parameter_invalid', param, message: `Invalid ${param}: must be true or false` }),
      });
    }
  });

  it('reads any case in a v2 query string, while a v2 JSON body takes JSON booleans only', async () => {
    // Given an accounts-enabled platform with one closed account
    const platform = await newPlatform();
    const v2 = sdk(platform.secret_key);
    const account = await v2.v2.core.accounts.create({ configuration: { merchant: {} } });
    await v2.v2.core.accounts.close(account.id, { applied_configurations: ['merchant'] });
    // When the list is filtered with closed=True (a v2-era stripe-python sends it so)
    const closed = await api('GET', '/v2/core/accounts?closed=True', { key: platform.secret_key });
    // Then the closed account is listed
    expect(closed.status).toBe(200);
    expect(closed.body.data.map((item: { id: string }) => item.id)).toContain(account.id);
    const refused = await api('GET', '/v2/core/accounts?closed=yes', { key: platform.secret_key });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'parameter_invalid', message: 'Invalid closed: must be true or false' } } });

    // When a JSON body carries a boolean as text, it is refused with the field's path
    const text = await api('POST', '/v2/core/accounts', {
      key: platform.secret_key,
      json: { configuration: { merchant: { capabilities: { card_payments: { requested: 'true' } } } } },
    });
    expect(text.status).toBe(400);
    expect(text.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
    expect(text.body.error.message).toContain('configuration.merchant.capabilities.card_payments.requested');
  });
});
