import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { inject } from 'vitest';
import { meterAwsCalls } from '#shared/aws/aws-calls.ts';
import { makeTable, tableClient, type Table } from '#shared/data/table.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { createPlatform, type CreatePlatformOptions, type CreatedPlatform } from '#shared/platform/platform-service.ts';

export const stack = inject('stack');

/** The local stack's table, for arranging data and for checks on what is stored. */
export const stackTable = (): Table => makeTable(stackClient(), stack.env.TABLE_NAME!);

/** A DynamoDB client on the local stack's DynamoDB Local. */
export const stackClient = (): DynamoDBClient =>
  tableClient({
    endpoint: stack.env.DYNAMODB_ENDPOINT,
    region: stack.env.AWS_REGION,
    credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! },
  });

/** The stack's table on a client whose DynamoDB calls are counted inside a call scope (`meterAwsCalls`). */
export const meteredStackTable = (): Table => makeTable(meterAwsCalls(stackClient(), 'dynamodb'), stack.env.TABLE_NAME!);

export const platformStore = () => dynamoPlatformStore(stackTable());

/** Every item of the shared table (all pages: in a full run it outgrows one 1 MB scan page), optionally filtered. */
export async function scanStackTable(filter: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'> = {}): Promise<Record<string, unknown>[]> {
  const table = stackTable();
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({ ...filter, TableName: table.name, ...(start ? { ExclusiveStartKey: start } : {}) });
    items.push(...page.items);
    start = page.lastKey;
  } while (start);
  return items;
}

/** A fresh platform per test file keeps tests apart without any cleanup. */
export const newPlatform = (options?: CreatePlatformOptions): Promise<CreatedPlatform> => createPlatform(platformStore(), options);

/** The official SDK pointed at the local stack, exactly as a user would configure it. */
export const sdk = (key: string, options: Stripe.StripeConfig = {}) => new Stripe(key, { host: '127.0.0.1', port: stack.port, protocol: 'http', ...options });

export interface ApiCall {
  key?: string;
  headers?: Record<string, string>;
  form?: string;
  json?: unknown;
  body?: string | Buffer;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** A raw HTTP call, for what the SDK never sends (malformed bodies, Basic auth, odd headers). */
export async function api(method: string, path: string, call: ApiCall = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.key) headers.authorization = `Bearer ${call.key}`;
  let body: string | Buffer | undefined = call.body;
  if (call.form !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = call.form;
  }
  if (call.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(call.json);
  }
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
