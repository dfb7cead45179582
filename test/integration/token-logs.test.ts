import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { startServiceProcess } from '#local/service-process.ts';

const client = (key: string, baseUrl: string) => new Stripe(key, { host: '127.0.0.1', port: Number(new URL(baseUrl).port), protocol: 'http' });
const year = String(new Date().getUTCFullYear() + 1);
/**
 * Two of these files run at once (vitest.config.ts, `ownStacks`): a whole stack (DynamoDB Local, the queues)
 * starting beside another may take longer than the default 30 s.
 */
const startTimeout = 120_000;

describe('logs of token requests', () => {
  it('never contain card numbers, CVCs, account numbers or identity numbers, even with event logging switched on', async () => {
    // Given a service at DEBUG level whose environment asks Powertools to log every Lambda event
    const service = await startServiceProcess(['--in-memory'], { POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOGGER_LOG_EVENT: 'true' }, startTimeout);
    const sensitive = [
      '4000056655665556',
      '378282246310005',
      '4929123456789015',
      '4242424242424241',
      '9183',
      '000333333335',
      '987654321',
      '321-54-9876',
      '111223333',
      'DE73920381745',
    ];
    try {
      const tokens = client(service.publishableKey, service.baseUrl);
      // When tokens are created, refused and retrieved
      const created = await tokens.tokens.create({ card: { number: '4000056655665556', exp_month: '8', exp_year: year } });
      await tokens.tokens.create({ card: { number: '378282246310005', exp_month: '8', exp_year: year, cvc: '9183' } });
      await tokens.tokens.create({ bank_account: { country: 'US', account_number: '000333333335', routing_number: '110000000' } });
      await tokens.tokens.create({ pii: { id_number: '321-54-9876' } });
      await tokens.tokens.create({ person: { first_name: 'Jenny', id_number: '111223333' } });
      await tokens.tokens.create({ account: { company: { name: 'Acme', vat_id: 'DE73920381745' } } });
      await tokens.tokens.create({ cvc_update: { cvc: '9183' } });
      await expect(tokens.tokens.create({ card: { number: '4929123456789015', exp_month: '8', exp_year: year, cvc: '9183' } })).rejects.toMatchObject({
        statusCode: 402,
      });
      await expect(tokens.tokens.create({ card: { number: '4242424242424241', exp_month: '8', exp_year: year } })).rejects.toMatchObject({ statusCode: 402 });
      await expect(tokens.tokens.create({ bank_account: { country: 'US', account_number: '987654321', routing_number: '110000000' } })).rejects.toMatchObject({
        statusCode: 400,
      });
      await client(service.secretKey, service.baseUrl).tokens.retrieve(created.id);
    } finally {
      await service.stop();
    }

    // Then nothing the process printed holds any of them
    const output = service.output();
    expect(output).toContain('Service API listening on');
    for (const value of sensitive) expect(output, value).not.toContain(value);
  });
});
