import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serviceClients, withoutCallLogging } from '#shared/aws/sdk-clients.ts';
import { emulatorClientOptions, forEngines, useLocalEngines } from '#local/engine-clients.ts';

const middlewareOf = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((entry) => entry.split(' - ')[0]);

describe('withoutCallLogging', () => {
  it('takes the logger out of every client, and the user agent out of engine clients only', () => {
    // Given clients for the local engines and one for AWS
    const credentials = { accessKeyId: 'LOCALKEY', secretAccessKey: 'secret' };
    const emulatorTable = forEngines(
      withoutCallLogging(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', ...emulatorClientOptions(credentials) })),
    );
    const emulatorQueue = forEngines(
      withoutCallLogging(new SQSClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', ...emulatorClientOptions(credentials) })),
    );
    const aws = withoutCallLogging(new DynamoDBClient({ region: 'us-east-1' }));

    // Then none logs calls; the emulator clients send no user agent, the AWS one keeps it (and its signing)
    for (const client of [emulatorTable, emulatorQueue, aws]) expect(middlewareOf(client)).not.toContain('loggerMiddleware');
    expect(middlewareOf(emulatorTable)).not.toContain('getUserAgentMiddleware');
    expect(middlewareOf(emulatorQueue)).not.toContain('getUserAgentMiddleware');
    expect(middlewareOf(aws)).toEqual(expect.arrayContaining(['getUserAgentMiddleware', 'serializerMiddleware', 'retryMiddleware']));
  });
});

describe('serviceClients', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('makes one client per service and process, each on its configured endpoint, metered, without call logging, and unsigned against the engines once the local runtime hooks in', async () => {
    // Given the local stack's configuration, and its one hook into the service's clients
    useLocalEngines({ accessKeyId: 'LOCALKEY', secretAccessKey: 'secret' }, Buffer.alloc(32));
    for (const [name, value] of Object.entries({
      TABLE_NAME: 'service',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8001',
      SQS_ENDPOINT: 'http://127.0.0.1:8002',
      EVENTBRIDGE_ENDPOINT: 'http://127.0.0.1:8003',
    }))
      vi.stubEnv(name, value);

    // When the service asks for its clients, twice
    const makeEventBridge = (options: object) => new EventBridgeClient(options);
    const made = { dynamodb: serviceClients.dynamodb(), sqs: serviceClients.sqs(), events: serviceClients.events(makeEventBridge) };

    // Then each service has one client, on its endpoint and region, with its calls metered, never logged, and
    // no user agent (the emulators' clients); the table's refuses items over 400 KB
    expect([serviceClients.dynamodb(), serviceClients.sqs(), serviceClients.events(makeEventBridge)]).toEqual([made.dynamodb, made.sqs, made.events]);
    const ports = { dynamodb: 8001, sqs: 8002, events: 8003 };
    for (const [service, client] of Object.entries(made)) {
      expect((await client.config.endpoint?.())?.port).toBe(ports[service as keyof typeof ports]);
      expect(await client.config.region()).toBe('eu-west-1');
      expect(middlewareOf(client)).toContain('meterAwsCalls');
      expect(middlewareOf(client)).not.toContain('loggerMiddleware');
      expect(middlewareOf(client)).not.toContain('getUserAgentMiddleware');
    }
    expect(middlewareOf(made.dynamodb)).toContain('itemSizeGuard');
    expect((await made.sqs.config.credentials()).accessKeyId).toBe('LOCALKEY');
  });
});
