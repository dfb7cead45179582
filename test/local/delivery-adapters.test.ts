import { createServer, type IncomingMessage, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEventBridgeReceiver, type EventBridgeReceiver } from '#local/eventbridge-receiver.ts';
import { startEventGridReceiver, type EventGridReceiver } from '#local/event-grid-receiver.ts';
import { eventBridgePublisher } from '#shared/delivery/eventbridge-publisher.ts';
import { eventGridSender, type CloudEvent } from '#shared/delivery/event-grid-sender.ts';
import { newSigningSecret } from '#shared/delivery/signature.ts';
import { PrivateTargetError, publicOnlyLookup } from '#shared/delivery/egress-policy.ts';
import { webhookSender } from '#shared/delivery/webhook-sender.ts';

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Respond = (request: IncomingMessage, response: ServerResponse) => void;

/** A webhook endpoint on 127.0.0.1 that records requests and answers as the current test tells it to. */
async function startTarget() {
  const requests: ReceivedRequest[] = [];
  let respond: Respond = (_request, response) => void response.writeHead(200).end();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(request, response);
    });
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answerWith: (next: Respond) => {
      respond = next;
    },
    stop: () => close(server),
  };
}

const listen = (server: Server) => new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
const close = (server: Server) =>
  new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

const thinBody = JSON.stringify({
  id: 'evt_1',
  object: 'v2.core.event',
  type: 'v2.core.event_destination.ping',
  created: '2026-11-22T10:00:00.000Z',
  livemode: false,
  context: null,
  related_object: { id: 'ed_1', type: 'v2.core.event_destination', url: '/v2/core/event_destinations/ed_1' },
});

describe('webhook sender', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  const secret = newSigningSecret();
  const sender = webhookSender({ timeoutMs: 5_000, egress: { allowPrivateInTestMode: true } });

  beforeAll(async () => {
    target = await startTarget();
  });

  afterAll(async () => {
    await target?.stop();
  });

  beforeEach(() => {
    target.requests.length = 0;
    target.answerWith((_request, response) => void response.writeHead(200).end('ok'));
  });

  it('delivers on a 2xx, POSTing the exact body with a signature the official SDK accepts', async () => {
    // Given an endpoint that answers 204
    target.answerWith((_request, response) => void response.writeHead(204).end());

    // When a thin notification with non-ASCII text is sent
    const body = thinBody.replace('ed_1"', 'ed_1", "note": "Zürich ✓"');
    const attempt = await sender.send({ livemode: false, url: `${target.url}/hooks/service`, body, secret });

    // Then the attempt is delivered with the status
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 204, error: null, missingTarget: false });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);

    // And the endpoint got the exact bytes, as JSON, from our user agent, on the requested path
    const [received] = target.requests;
    expect(target.requests).toHaveLength(1);
    expect(received).toMatchObject({ method: 'POST', path: '/hooks/service', body });
    expect(received!.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Service/1.0 (+webhooks)',
      accept: '*/*; q=0.5, text/html',
    });

    // And the SDK verifies the signature it carried against that body and the secret
    const notification = new Stripe('sk_test_x').parseEventNotification(received!.body, received!.headers['service-signature']!, secret);
    expect(notification).toMatchObject({ id: 'evt_1', type: 'v2.core.event_destination.ping' });
  });

  it('signs with the clock at send time and uses a custom user agent when given one', async () => {
    // Given a sender with its own user agent and a clock fixed at a known second
    const custom = webhookSender({ timeoutMs: 5_000, userAgent: 'Service/1.0 (+https://example.test/webhooks)', egress: { allowPrivateInTestMode: true } });

    // When a body is sent
    await custom.send({ livemode: false, url: target.url, body: thinBody, secret, now: () => 1_795_000_000_999 });

    // Then the signature carries that second and the user agent is the custom one
    expect(target.requests[0]!.headers['service-signature']).toMatch(/^t=1795000000,v1=[0-9a-f]{64}$/);
    expect(target.requests[0]!.headers['user-agent']).toBe('Service/1.0 (+https://example.test/webhooks)');
  });

  it('never connects to a private address in live mode (nor in test mode when private targets are off)', async () => {
    // Given a receiver on loopback, which a test-mode endpoint may reach on a developer's machine
    const strict = webhookSender({ timeoutMs: 5_000, egress: { allowPrivateInTestMode: false } });
    const local = new URL(target.url);

    // When live-mode (and strict test-mode) webhooks aim at it by address, by name and by IPv4-mapped IPv6
    const attempts = await Promise.all([
      sender.send({ livemode: true, url: target.url, body: thinBody, secret }),
      sender.send({ livemode: true, url: `http://localhost:${local.port}/`, body: thinBody, secret }),
      sender.send({ livemode: true, url: `http://[::ffff:127.0.0.1]:${local.port}/`, body: thinBody, secret }),
      strict.send({ livemode: false, url: target.url, body: thinBody, secret }),
    ]);

    // Then each attempt failed with the refusal, and the receiver got nothing
    for (const attempt of attempts) expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: expect.stringContaining('private') });
    expect(target.requests).toHaveLength(0);
    // while the test-mode sender still delivers there
    expect(await sender.send({ livemode: false, url: target.url, body: thinBody, secret })).toMatchObject({ outcome: 'delivered' });
  });

  it('checks the address DNS answers at connect time, so a name that turns private later is refused then', async () => {
    // A name the registration check let through answers with a loopback address at delivery: the lookup
    // the connection uses refuses it (here `localhost` plays the name whose DNS answer changed).
    const answer = await new Promise<Error | null>((resolve) => publicOnlyLookup('localhost', {}, (error) => resolve(error)));
    expect(answer).toBeInstanceOf(PrivateTargetError);
  });

  it('fails with "HTTP 500" when the endpoint answers 500', async () => {
    // Given an endpoint that fails
    target.answerWith((_request, response) => void response.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));

    // When a body is sent
    const attempt = await sender.send({ livemode: false, url: target.url, body: thinBody, secret });

    // Then the attempt failed with the status, and keeps what the endpoint said
    expect(attempt).toMatchObject({ outcome: 'failed', status: 500, error: 'HTTP 500', missingTarget: false, responseExcerpt: 'boom' });
  });

  it('keeps only the first 256 bytes of the response body, never half a character, and masks the signing secret', async () => {
    // Given an endpoint that answers a long body of two-byte characters, with the secret in it
    target.answerWith((_request, response) => void response.writeHead(400).end(`${secret} ${'é'.repeat(1_000)}`));

    // When a body is sent
    const attempt = await sender.send({ livemode: false, url: target.url, body: thinBody, secret });

    // Then the excerpt is bounded, ends on a whole character, and does not hold the secret
    const excerpt = attempt.responseExcerpt!;
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(256);
    expect(Buffer.byteLength(excerpt)).toBeGreaterThan(200);
    expect(excerpt).toMatch(/^\[signing secret\] é+$/);
    expect(excerpt).not.toContain(secret);

    // And a secret cut off by the excerpt's end is masked too
    target.answerWith((_request, response) => void response.writeHead(400).end(`${'a'.repeat(245)}${secret}`));
    const cut = (await sender.send({ livemode: false, url: target.url, body: thinBody, secret })).responseExcerpt!;
    expect(cut).toBe(`${'a'.repeat(245)}[signing secret]`);
  });

  it('fails on a redirect without following it', async () => {
    // Given an endpoint that redirects to another path that would answer 200
    target.answerWith((request, response) => {
      if (request.url === '/moved') response.writeHead(200).end();
      else response.writeHead(302, { location: `${target.url}/moved` }).end();
    });

    // When a body is sent
    const attempt = await sender.send({ livemode: false, url: `${target.url}/old`, body: thinBody, secret });

    // Then the attempt failed on the 302 and the redirect target was never asked
    expect(attempt).toMatchObject({ outcome: 'failed', status: 302, error: expect.stringMatching(/^HTTP 302/) });
    expect(target.requests.map((request) => request.path)).toEqual(['/old']);
  });

  it('fails with a timeout, promptly, when the endpoint never answers', async () => {
    // Given an endpoint that accepts the request and never responds
    target.answerWith(() => undefined);
    const impatient = webhookSender({ timeoutMs: 200, egress: { allowPrivateInTestMode: true } });

    // When a body is sent
    const attempt = await impatient.send({ livemode: false, url: target.url, body: thinBody, secret });

    // Then the attempt failed on the timeout, soon after it
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'timed out after 200 ms' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(190);
    expect(attempt.durationMs).toBeLessThan(2_000);
  });

  it('delivers on a 2xx without reading an endless response body', async () => {
    // Given an endpoint that answers 200 and then streams without end
    target.answerWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });

    // When a body is sent with a long timeout
    const attempt = await webhookSender({ timeoutMs: 10_000, egress: { allowPrivateInTestMode: true } }).send({
      livemode: false,
      url: target.url,
      body: thinBody,
      secret,
    });

    // Then it is delivered well before the timeout: the sender stopped reading
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(attempt.durationMs).toBeLessThan(5_000);
  });

  it('fails with "connection refused" when nothing listens on the port', async () => {
    // Given a port nobody listens on
    const port = await closedPort();

    // When a body is sent there
    const attempt = await sender.send({ livemode: false, url: `http://127.0.0.1:${port}/hook`, body: thinBody, secret });

    // Then the attempt failed without a status, and the call did not throw
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'connection refused', missingTarget: false });
  });

  it('rejects a malformed URL as a programming error', async () => {
    // When the URL cannot be parsed
    const sending = sender.send({ livemode: false, url: 'not a url', body: thinBody, secret });

    // Then the promise rejects instead of recording a failed delivery
    await expect(sending).rejects.toThrow(TypeError);
  });

  it('sends again on a new connection when a kept-alive one is closed as the request goes out', async () => {
    // Given an endpoint whose first answer keeps the connection open, and which then drops that connection
    // when the next request arrives on it (as a server closing an idle connection at that moment does)
    const sockets = new Set<unknown>();
    target.answerWith((request, response) => {
      if (sockets.has(request.socket)) return void request.socket.destroy();
      sockets.add(request.socket);
      response.writeHead(200).end();
    });
    expect(await sender.send({ livemode: false, url: target.url, body: thinBody, secret })).toMatchObject({ outcome: 'delivered' });

    // When the next body is sent
    const attempt = await sender.send({ livemode: false, url: target.url, body: thinBody, secret });

    // Then it is delivered over a new connection: the dropped request is not the endpoint's failure
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(target.requests).toHaveLength(3);
    expect(sockets.size).toBe(2);
  });

  it('fails with "connection reset" when a new connection is dropped too, without sending a third time', async () => {
    // Given an endpoint that answers once, then drops every connection a request arrives on
    let answered = false;
    target.answerWith((request, response) => {
      if (answered) return void request.socket.destroy();
      answered = true;
      response.writeHead(200).end();
    });
    await sender.send({ livemode: false, url: target.url, body: thinBody, secret });

    // When the next body is sent
    const attempt = await sender.send({ livemode: false, url: target.url, body: thinBody, secret });

    // Then it failed as a reset after one resend
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'connection reset' });
    expect(target.requests).toHaveLength(3);
  });
});

describe('EventBridge publisher', () => {
  let receiver: EventBridgeReceiver;
  let client: EventBridgeClient;

  const localClient = (endpoint: string) =>
    new EventBridgeClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

  beforeAll(async () => {
    receiver = await startEventBridgeReceiver({ busNames: ['cloudone.partner/service.local/acct_1/ed_1'] });
    client = localClient(receiver.endpoint);
  });

  afterAll(async () => {
    client?.destroy();
    await receiver?.stop();
  });

  beforeEach(() => {
    receiver.addBus('cloudone.partner/service.local/acct_1/ed_1');
    receiver.entries.length = 0;
  });

  const entry = {
    source: 'cloudone.partner/service.local/acct_1/ed_1',
    detailType: 'v1.customer.created',
    detail: thinBody,
    resources: ['arn:service:customer/cus_1'],
  };

  it('puts an accepted entry on the bus with its source, detail type, detail and resources', async () => {
    // Given a publisher for an existing partner bus
    const publisher = eventBridgePublisher({ client, busName: 'cloudone.partner/service.local/acct_1/ed_1' });

    // When an entry is put
    const attempt = await publisher.put(entry);

    // Then it is delivered and the bus received exactly that entry
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 200, error: null, missingTarget: false });
    expect(receiver.entries).toHaveLength(1);
    expect(receiver.entries[0]).toMatchObject({
      eventBusName: 'cloudone.partner/service.local/acct_1/ed_1',
      source: entry.source,
      detailType: 'v1.customer.created',
      detail: JSON.parse(thinBody),
      resources: ['arn:service:customer/cus_1'],
    });
  });

  it('fails with missingTarget once the bus is gone', async () => {
    // Given a bus deleted on the customer's side
    receiver.removeBus('cloudone.partner/service.local/acct_1/ed_1');
    const publisher = eventBridgePublisher({ client, busName: 'cloudone.partner/service.local/acct_1/ed_1' });

    // When an entry is put
    const attempt = await publisher.put(entry);

    // Then the entry failed because its target is missing, and nothing was recorded
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, missingTarget: true, error: expect.stringMatching(/^ResourceNotFoundException: /) });
    expect(receiver.entries).toEqual([]);
  });

  it('fails without missingTarget when the entry is refused for another reason', async () => {
    // When an entry whose detail is not a JSON object is put
    const attempt = await eventBridgePublisher({ client, busName: 'cloudone.partner/service.local/acct_1/ed_1' }).put({ ...entry, detail: '[1]' });

    // Then it failed with EventBridge's code, and the bus is not reported missing
    expect(attempt).toMatchObject({ outcome: 'failed', missingTarget: false, error: expect.stringMatching(/^MalformedDetail: /) });
  });

  it('turns a failed call into a failed attempt instead of throwing', async () => {
    // Given a client for an EventBridge that cannot be reached
    const unreachable = localClient(`http://127.0.0.1:${await closedPort()}`);

    // When an entry is put through it
    const attempt = await eventBridgePublisher({ client: unreachable, busName: 'default' }).put(entry);
    unreachable.destroy();

    // Then the attempt failed with the connection error
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, missingTarget: false, error: 'connection refused' });
  });
});

describe('Event Grid sender', () => {
  let receiver: EventGridReceiver;

  beforeAll(async () => {
    receiver = await startEventGridReceiver();
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  beforeEach(() => {
    receiver.restoreTopic('service-acct_1-ed_1');
    receiver.events.length = 0;
  });

  const event: CloudEvent = {
    specversion: '1.0',
    id: 'evt_1',
    source: '/service/accounts/acct_1',
    type: 'v1.customer.created',
    time: '2026-11-22T10:00:00.000Z',
    subject: 'cus_1',
    datacontenttype: 'application/json',
    data: JSON.parse(thinBody),
  };

  it('delivers one event to the partner topic', async () => {
    // Given a sender for the receiver
    const sender = eventGridSender({ endpoint: receiver.endpoint, timeoutMs: 5_000 });

    // When an event is sent to a topic
    const attempt = await sender.send({ topicName: 'service-acct_1-ed_1', event });

    // Then it is delivered and the topic holds exactly that event
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 200, error: null, missingTarget: false });
    expect(receiver.events).toEqual([{ topic: 'service-acct_1-ed_1', receivedAt: expect.any(String), event }]);
  });

  it('fails with missingTarget and HTTP 404 once the topic is gone', async () => {
    // Given a topic deleted on the customer's side
    receiver.removeTopic('service-acct_1-ed_1');

    // When an event is sent to it
    const attempt = await eventGridSender({ endpoint: `${receiver.endpoint}/`, timeoutMs: 5_000 }).send({ topicName: 'service-acct_1-ed_1', event });

    // Then it failed as a missing target
    expect(attempt).toMatchObject({ outcome: 'failed', status: 404, error: 'HTTP 404', missingTarget: true });
    expect(receiver.events).toEqual([]);
  });

  it('fails without missingTarget when the topic refuses the event', async () => {
    // When an event with an empty id is sent
    const attempt = await eventGridSender({ endpoint: receiver.endpoint, timeoutMs: 5_000 }).send({
      topicName: 'service-acct_1-ed_1',
      event: { ...event, id: '' },
    });

    // Then it failed on the 400, and the topic is not reported missing
    expect(attempt).toMatchObject({ outcome: 'failed', status: 400, error: 'HTTP 400', missingTarget: false });
  });

  it('fails with "connection refused" when Event Grid cannot be reached', async () => {
    // When an event is sent to an endpoint nothing listens on
    const attempt = await eventGridSender({ endpoint: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 5_000 }).send({ topicName: 't', event });

    // Then the attempt failed without throwing
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'connection refused', missingTarget: false });
  });
});
