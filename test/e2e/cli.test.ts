import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { listen } from '../../scripts/cli/listen.ts';
import type { CliTarget } from '../../scripts/cli/target.ts';
import { trigger, triggerableTypes } from '../../scripts/cli/trigger.ts';
import { newPlatform, sdk, stack } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** Every event type of the platform so far, v1 (snapshot) and v2 (thin). */
async function emittedTypes(client: Stripe): Promise<Set<string>> {
  const types = new Set<string>();
  for await (const event of client.events.list({ limit: 100 })) types.add(event.type);
  let path: string | null = '/v2/core/events?limit=100';
  while (path) {
    const page = (await client.rawRequest('GET', path)) as { data: { type: string }[]; next_page_url: string | null };
    for (const event of page.data) types.add(event.type);
    path = page.next_page_url;
  }
  return types;
}

/** The CLI as a user runs it (`npm run cli -- …` is tsx on scripts/cli.ts), with its output gathered. */
function runCli(args: string[]): ChildProcessWithoutNullStreams & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args, '--api-base', stack.baseUrl], { stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return Object.assign(child, { output: () => output });
}

describe('npm run cli -- trigger and listen, against the running stack', () => {
  let platform: CreatedPlatform;
  let client: Stripe;
  let target: CliTarget;
  let receiver: WebhookReceiver;
  const quiet = () => {};

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    target = { baseUrl: stack.baseUrl, apiKey: platform.secret_key };
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  // The first calls of a freshly started stack load each handler: on a loaded machine that takes a while.
  it('Given an endpoint and a thin destination, when several types are triggered, then each event is listed and delivered, signed', {
    timeout: 180_000,
  }, async () => {
    // Given a v1 endpoint for the snapshot types and a thin destination for the v2 ones
    const snapshotTypes = ['customer.created', 'invoice.paid', 'issuing_authorization.created'] as const;
    const thinTypes = ['v2.core.account.created', 'v1.billing.meter.no_meter_found'] as const;
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?v1`, enabled_events: [...snapshotTypes] });
    const destination = await client.v2.core.eventDestinations.create({
      name: 'cli',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: [...thinTypes],
      webhook_endpoint: { url: `${receiver.url}?v2` },
      include: ['webhook_endpoint.signing_secret'],
    });

    // When each is triggered
    const lines: string[] = [];
    for (const type of [...snapshotTypes, ...thinTypes]) await trigger(type, { target, client, print: (line) => lines.push(line) });

    // Then the run said so, the events are listed and every one was delivered, verifiable with the secrets
    expect(lines).toContain('Running fixture for: invoice.paid');
    expect(lines.filter((line) => line.startsWith('Trigger succeeded!'))).toHaveLength(5);
    const listed = await emittedTypes(client);
    for (const type of snapshotTypes) expect(listed).toContain(type);
    await eventually(async () => ((await emittedTypes(client)).has('v1.billing.meter.no_meter_found') ? true : undefined));
    const delivered = await eventually(() => {
      const types = receiver.received.map((request) =>
        request.path.endsWith('?v1')
          ? client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, endpoint.secret!).type
          : client.parseEventNotification(request.body, request.headers['service-signature'] as string, destination.webhook_endpoint!.signing_secret!).type,
      );
      return [...snapshotTypes, ...thinTypes].every((type) => types.includes(type)) ? types : undefined;
    }, 30_000);
    expect(new Set(delivered)).toEqual(new Set([...snapshotTypes, ...thinTypes]));
  });

  it('Given a fresh platform, when every supported type is triggered, then the service emits every one of them', { timeout: 240_000 }, async () => {
    // Given a platform of its own
    const own = await newPlatform();
    const ownClient = sdk(own.secret_key);
    // When every fixture runs (four at a time)
    const types = triggerableTypes();
    for (let index = 0; index < types.length; index += 4) {
      await Promise.all(
        types
          .slice(index, index + 4)
          .map((type) => trigger(type, { target: { baseUrl: stack.baseUrl, apiKey: own.secret_key }, client: ownClient, print: quiet })),
      );
    }
    // Then every type was emitted (the meter error reports and the alert follow their windows and workers)
    let missing: string[] = [];
    await eventually(async () => {
      const types = await emittedTypes(ownClient);
      missing = triggerableTypes().filter((type) => !types.has(type));
      return missing.length === 0 ? true : undefined;
    }, 30_000).catch(() => undefined);
    expect(missing).toEqual([]);
  });

  it('Given an override, when triggered, then the object is made with it', async () => {
    const { answers } = await trigger('customer.created', {
      target,
      client,
      print: quiet,
      override: ['customer:name=Jenny Rosen'],
      add: ['customer:metadata.source=cli'],
    });
    expect(await client.customers.retrieve(String(answers.customer!.id))).toMatchObject({ name: 'Jenny Rosen', metadata: { source: 'cli' } });
  });

  it('Given listen running, when events happen, then each is printed once, in the order it happened, with its delivery attempts', async () => {
    // Given a listener and an endpoint that receives customer events
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?listen`, enabled_events: ['customer.created', 'customer.updated'] });
    const lines: string[] = [];
    const listener = await listen({ target, client, print: (line) => lines.push(line), intervalMs: 100 });
    try {
      // When a customer is created and updated, and then a product made
      const { answers } = await trigger('customer.updated', { target, client, print: quiet });
      const customerEvents = (await client.events.list({ limit: 10, types: ['customer.created', 'customer.updated'] })).data.filter(
        (event) => (event.data.object as { id: string }).id === answers.customer!.id,
      );
      const [updated, created] = customerEvents;
      // Then both are printed with their delivery to the endpoint
      const attempts = () => lines.filter((line) => line.includes('<--  [200]') && line.includes(endpoint.id));
      await eventually(() => (attempts().length >= 2 ? true : undefined));
      const product = await client.products.create({ name: 'later' });
      const productEvent = (await client.events.list({ limit: 1, type: 'product.created' })).data[0]!;
      expect((productEvent.data.object as { id: string }).id).toBe(product.id);
      await eventually(() => (lines.some((line) => line.includes(productEvent.id)) ? true : undefined));

      const eventLine = (id: string) => lines.filter((line) => line.includes(`--> `) && line.includes(`[${id}]`));
      expect(eventLine(created!.id)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {3}--> customer\.created \[evt_\w+\]$/)]);
      expect(eventLine(updated!.id)).toHaveLength(1);
      expect(eventLine(productEvent.id)).toHaveLength(1);
      expect(lines.findIndex((line) => line.includes(created!.id))).toBeLessThan(
        lines.findIndex((line) => line.includes(`--> customer.updated [${updated!.id}]`)),
      );
      expect(lines.findIndex((line) => line.includes(`[${updated!.id}]`))).toBeLessThan(lines.findIndex((line) => line.includes(productEvent.id)));
      // and the thin mirrors, marked as such
      expect(lines.filter((line) => / {3}--> v1\.customer\.created \[evt_\w+\] \(thin\)$/.test(line))).toHaveLength(1);
      // (in the order they were made, which two concurrent deliveries do not fix)
      expect(attempts()).toHaveLength(2);
      expect(attempts()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`<--  \\[200\\] POST ${receiver.url.replace(/[.?]/g, '\\$&')}\\?listen \\[${created!.id}\\] \\(${endpoint.id}, \\d+ ms\\)$`),
          ),
          expect.stringMatching(new RegExp(`\\[${updated!.id}\\] \\(${endpoint.id}, \\d+ ms\\)$`)),
        ]),
      );
      // and no line twice
      expect(new Set(lines).size).toBe(lines.length);
    } finally {
      await listener.stop();
      await client.webhookEndpoints.del(endpoint.id);
    }
  });

  it('Given listen --print-json, when an event happens, then it is printed as the API lists it, one JSON object a line', async () => {
    const lines: string[] = [];
    const listener = await listen({ target, client, print: (line) => lines.push(line), printJson: true, intervalMs: 100, events: ['product.created'] });
    try {
      const product = await client.products.create({ name: 'json' });
      const line = await eventually(() => lines.find((each) => each.includes(product.id)));
      const event = JSON.parse(line);
      expect(event).toMatchObject({ object: 'event', type: 'product.created', data: { object: { id: product.id } } });
      expect(await client.events.retrieve(event.id)).toMatchObject({ id: event.id, type: 'product.created' });
      expect(lines.every((each) => JSON.parse(each).type !== 'v1.product.created')).toBe(true);
    } finally {
      await listener.stop();
    }
  });

  it('Given listen --forward-to, then it makes an endpoint for the URL and prints its secret, the forwarded delivery verifies with it, and SIGTERM deletes the endpoint', async () => {
    // Given the command running, forwarding customer.created
    const child = runCli(['listen', '--api-key', platform.secret_key, '--forward-to', `${receiver.url}?forwarded`, '--events', 'customer.created']);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const secret = await eventually(() => /Ready! Your webhook signing secret is (whsec_\w+) \(\^C to quit\)/.exec(child.output())?.[1], 30_000);
      const endpoints = (await client.webhookEndpoints.list({ limit: 100 })).data.filter((each) => each.url === `${receiver.url}?forwarded`);
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0]!.enabled_events).toEqual(['customer.created']);

      // When a customer is created
      await trigger('customer.created', { target, client, print: quiet });

      // Then the delivery verifies with the printed secret, and the attempt is printed
      const request = await eventually(() => receiver.received.find((each) => each.path.endsWith('?forwarded')));
      const event = client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, secret);
      expect(event.type).toBe('customer.created');
      await eventually(() => (child.output().includes(`<--  [200] POST ${receiver.url}?forwarded [${event.id}]`) ? true : undefined), 30_000);

      // And when it is stopped, the endpoint is gone
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(child.output()).toContain(`Deleted the temporary webhook endpoint ${endpoints[0]!.id}.`);
      await expect(client.webhookEndpoints.retrieve(endpoints[0]!.id)).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('Given an unknown type, when trigger runs, then it exits 1 naming the close matches, and makes nothing', async () => {
    const before = (await client.customers.list({ limit: 100 })).data.length;
    const run = promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'scripts/cli.ts',
      'trigger',
      'customer.craeted',
      '--api-key',
      platform.secret_key,
      '--api-base',
      stack.baseUrl,
    ]);
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("Unknown event type 'customer.craeted'.\nDid you mean:\n  customer.created\n"),
    });
    expect((await client.customers.list({ limit: 100 })).data).toHaveLength(before);
    // and the list, here through the package's bin (what `npx service-cli` runs)
    const listed = await promisify(execFile)(process.execPath, ['bin/service-cli.mjs', 'trigger', '--list']);
    expect(listed.stdout.split('\n')).toEqual(expect.arrayContaining(['Supported event types:', '  customer.created', '  v2.core.account.created']));
  });
});
