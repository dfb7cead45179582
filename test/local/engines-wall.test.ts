import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '#local/stack.ts';

/**
 * DynamoDB Local and the SQS emulator hold every tenant's keys and signing secrets and feed the workers. A
 * page the developer visits can reach them two ways: by rebinding its own name to 127.0.0.1 (its requests
 * carry `Host: evil.example`), and by plain cross-site form posts to http://127.0.0.1:<port> (no preflight,
 * no `Authorization`). Both must get nothing.
 */
let stack: LocalStack;
let dataDir: string;
const stateFile = () => join(dataDir, 'local-stack.json');
const wallQueue = { name: 'wall-test', urlVariable: 'WALL_TEST_QUEUE_URL', visibilityTimeoutSeconds: 30, maxReceiveCount: 1 };

interface RawAnswer {
  status: number;
  body: string;
}

/** One request with exactly these headers (Host included), as a browser or a script on this machine would send it. */
function raw(endpoint: string, headers: Record<string, string>, body: string, path = '/', method = 'POST'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${endpoint}${path}`, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hostOf = (endpoint: string) => new URL(endpoint).host;
/** The header the stack's own clients send: SigV4's shape, naming an access key id. */
const signedBy = (accessKeyId: string) =>
  `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00`;
const ownKey = () => stack.env.AWS_ACCESS_KEY_ID!;

function scan(host: string, authorization?: string): Promise<RawAnswer> {
  return raw(
    stack.env.DYNAMODB_ENDPOINT!,
    {
      host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.Scan',
      ...(authorization ? { authorization } : {}),
    },
    JSON.stringify({ TableName: stack.env.TABLE_NAME }),
  );
}

function sqsCall(action: string, input: object, host: string, authorization?: string): Promise<RawAnswer> {
  return raw(
    stack.env.SQS_ENDPOINT!,
    {
      host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `AmazonSQS.${action}`,
      ...(authorization ? { authorization } : {}),
    },
    JSON.stringify(input),
  );
}

/** A form post such as any web page can make across origins (no preflight): what the emulator's SNS side parses. */
const formPost = (fields: Record<string, string>, host = hostOf(stack.env.SQS_ENDPOINT!), authorization?: string) =>
  raw(
    stack.env.SQS_ENDPOINT!,
    { host, 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    new URLSearchParams(fields).toString(),
  );

async function messagesOnWallQueue(): Promise<number> {
  const answer = await sqsCall(
    'GetQueueAttributes',
    { QueueUrl: stack.sqs.queues.get(wallQueue.name)!.url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'] },
    hostOf(stack.env.SQS_ENDPOINT!),
    signedBy(ownKey()),
  );
  expect(answer.status).toBe(200);
  const { Attributes } = JSON.parse(answer.body) as { Attributes: Record<string, string> };
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesDelayed);
}

describe.runIf(process.platform !== 'win32')('the local engines behind the wall', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engines-wall-'));
    stack = await startLocalStack({ port: 0, quiet: true, dataDir, stateFile: stateFile(), extraQueues: [wallQueue] });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("gives the stack's own credentials a working Scan and SendMessage (the controls for every refusal below)", async () => {
    // When the stack's own key id calls each engine from a loopback Host
    const scanned = await scan(hostOf(stack.env.DYNAMODB_ENDPOINT!), signedBy(ownKey()));
    const sent = await sqsCall('SendMessage', { QueueUrl: stack.sqs.queues.get(wallQueue.name)!.url, MessageBody: 'own' }, 'localhost', signedBy(ownKey()));

    // Then both answer, and the table holds the default platform's key
    expect(scanned.status).toBe(200);
    expect(JSON.parse(scanned.body).Count).toBeGreaterThan(0);
    expect(sent.status).toBe(200);
    expect(await messagesOnWallQueue()).toBe(1);
    await sqsCall('PurgeQueue', { QueueUrl: stack.sqs.queues.get(wallQueue.name)!.url }, 'localhost', signedBy(ownKey()));
  });

  it("refuses a Scan whose Host is not a loopback name (DNS rebinding), even with the stack's own key id", async () => {
    // When a rebinding page scans the table, with and without a port in its Host, and knowing the key id
    for (const host of ['evil.example', `rebind.example:${new URL(stack.env.DYNAMODB_ENDPOINT!).port}`]) {
      const answer = await scan(host, signedBy(ownKey()));

      // Then it gets the stack's 403 and not one item
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ error: expect.objectContaining({ type: 'invalid_request_error', code: 'host_not_allowed' }) });
      expect(answer.body).not.toContain('Items');
    }
  });

  it('refuses a Scan from a loopback Host with no credentials, the fixed ones of old, or a made-up key id', async () => {
    const host = hostOf(stack.env.DYNAMODB_ENDPOINT!);

    // When the table is scanned without an Authorization header
    const unsigned = await scan(host);
    // Then DynamoDB's own error says so, and no item comes back
    expect(unsigned.status).toBe(400);
    expect(JSON.parse(unsigned.body)).toEqual({
      __type: expect.stringMatching(/#UnrecognizedClientException$/),
      message: expect.stringMatching(/^Request is missing Authentication Token/),
    });

    // When it is scanned with any other key id (`local` was the fixed one every client used)
    for (const keyId of ['local', 'AKIAIOSFODNN7EXAMPLE', `${ownKey()}X`, ownKey().slice(0, -1)]) {
      const answer = await scan(host, signedBy(keyId));
      // Then the token is invalid, and no item comes back
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).message).toMatch(/^The security token included in the request is invalid/);
      expect(answer.body).not.toContain('Items');
    }
  });

  it('enqueues nothing for a SendMessage with a foreign Host, no credentials or another key id', async () => {
    const queueUrl = stack.sqs.queues.get(wallQueue.name)!.url;
    const send = (host: string, authorization?: string) => sqsCall('SendMessage', { QueueUrl: queueUrl, MessageBody: '{"forged":true}' }, host, authorization);

    // When a message is sent from a rebinding page (with the right key id even), then unsigned, then with another key id
    const rebound = await send('evil.example', signedBy(ownKey()));
    const unsigned = await send(hostOf(stack.env.SQS_ENDPOINT!));
    const otherKey = await send(hostOf(stack.env.SQS_ENDPOINT!), signedBy('local'));

    // Then each is refused (SQS's own 403 for the credentials) and the queue stays empty
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe('host_not_allowed');
    for (const answer of [unsigned, otherKey]) {
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).__type).toMatch(/#InvalidClientTokenId$/);
    }
    expect(await messagesOnWallQueue()).toBe(0);
  });

  it("refuses the issue's three plain form posts to the emulator's SNS side (topic, subscription to a queue, publish)", async () => {
    // Given the attack: a topic, a raw subscription of a stack queue to it, a publish, each a cross-site form post
    const queueArn = stack.sqs.queues.get(wallQueue.name)!.arn;
    const topicArn = 'arn:aws:sns:us-east-1:000000000000:rebound';
    const posts: Record<string, string>[] = [
      { Action: 'CreateTopic', Name: 'rebound' },
      {
        Action: 'Subscribe',
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: queueArn,
        'Attributes.entry.1.key': 'RawMessageDelivery',
        'Attributes.entry.1.value': 'true',
      },
      { Action: 'Publish', TopicArn: topicArn, Message: '{"forged":true}' },
    ];

    // When a page posts them to the emulator's own address (a loopback Host, no Authorization), and again rebound
    for (const fields of posts) {
      const crossSite = await formPost(fields);
      const rebound = await formPost(fields, 'evil.example');

      // Then every one is refused
      expect(crossSite.status).toBe(403);
      expect(crossSite.body).toMatch(/InvalidClientTokenId/);
      expect(rebound.status).toBe(403);
    }

    // And no topic exists, and nothing reached the queue
    const topics = await formPost({ Action: 'ListTopics' }, hostOf(stack.env.SQS_ENDPOINT!), signedBy(ownKey()));
    expect(topics.status).toBe(200);
    expect(topics.body).not.toContain('rebound');
    expect(await messagesOnWallQueue()).toBe(0);
  });

  it("refuses the emulator's inspection routes, which list queues and their messages, to anyone but the stack", async () => {
    const own = hostOf(stack.env.SQS_ENDPOINT!);
    expect((await raw(stack.env.SQS_ENDPOINT!, { host: own }, '', `/_fauxqs/queues/${wallQueue.name}`, 'GET')).status).toBe(403);
    expect((await raw(stack.env.SQS_ENDPOINT!, { host: 'evil.example' }, '', '/_fauxqs/queues', 'GET')).status).toBe(403);
    expect((await raw(stack.env.SQS_ENDPOINT!, { host: own, authorization: signedBy(ownKey()) }, '', '/_fauxqs/queues', 'GET')).status).toBe(200);
  });

  it("keeps the database and the state file its owner's only, and the state file names the credentials that work", async () => {
    // Given the stack wrote an item (the default platform) to its data directory
    const databaseDir = join(dataDir, 'dynamodb');
    const files = readdirSync(databaseDir);

    // Then the directories are 0700 and every database file 0600, as is the state file
    expect(files.length).toBeGreaterThan(0);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(databaseDir).mode & 0o777).toBe(0o700);
    for (const file of files) expect({ file, mode: statSync(join(databaseDir, file)).mode & 0o777 }).toEqual({ file, mode: 0o600 });
    expect(statSync(stateFile()).mode & 0o777).toBe(0o600);

    // And the state file's key id is the one the engines take (what `npm run admin` signs with)
    const state = JSON.parse(readFileSync(stateFile(), 'utf8'));
    expect(state.credentials.accessKeyId).toBe(ownKey());
    expect(ownKey()).toMatch(/^LOCAL[0-9A-F]{32}$/);
    expect((await scan(hostOf(state.dynamodbEndpoint), signedBy(state.credentials.accessKeyId))).status).toBe(200);
  });
});
