import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';

export interface Table {
  client: DynamoDBDocumentClient;
  name: string;
}

let shared: Table | undefined;

/** The document client for the service table, created once per process (reused across warm invocations). */
export function serviceTable(): Table {
  if (!shared) {
    const { TABLE_NAME, AWS_REGION, DYNAMODB_ENDPOINT } = config();
    shared = { client: documentClient(new DynamoDBClient({ region: AWS_REGION, endpoint: DYNAMODB_ENDPOINT })), name: TABLE_NAME };
  }
  return shared;
}

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
