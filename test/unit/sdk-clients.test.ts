import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { emulatorClientOptions, withoutCallLogging } from '#shared/sdk-clients.ts';

const middlewareOf = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((entry) => entry.split(' - ')[0]);

describe('withoutCallLogging', () => {
  it('takes the logger out of every client, and the user agent out of emulator clients only', () => {
    // Given clients for the emulators and one for AWS
    const credentials = { accessKeyId: 'LOCALKEY', secretAccessKey: 'secret' };
    const emulatorTable = withoutCallLogging(
      new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', ...emulatorClientOptions(credentials) }),
    );
    const emulatorQueue = withoutCallLogging(new SQSClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', ...emulatorClientOptions(credentials) }));
    const aws = withoutCallLogging(new DynamoDBClient({ region: 'us-east-1' }));

    // Then none logs calls; the emulator clients send no user agent, the AWS one keeps it (and its signing)
    for (const client of [emulatorTable, emulatorQueue, aws]) expect(middlewareOf(client)).not.toContain('loggerMiddleware');
    expect(middlewareOf(emulatorTable)).not.toContain('getUserAgentMiddleware');
    expect(middlewareOf(emulatorQueue)).not.toContain('getUserAgentMiddleware');
    expect(middlewareOf(aws)).toEqual(expect.arrayContaining(['getUserAgentMiddleware', 'serializerMiddleware', 'retryMiddleware']));
  });
});
