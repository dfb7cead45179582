import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvalidRequestError } from '#shared/core/errors.ts';

/** DynamoDB refuses items over 400 KB; stay a little under it (its size rules round in places). */
export const maxItemBytes = 390 * 1024;

type AttributeValue = {
  S?: string;
  N?: string;
  B?: string;
  BOOL?: boolean;
  NULL?: boolean;
  M?: Record<string, AttributeValue>;
  L?: AttributeValue[];
  SS?: string[];
  NS?: string[];
  BS?: string[];
};

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** An attribute value's size by DynamoDB's rules (numbers counted generously, as their text). */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return bytes(value.S);
  if (value.N !== undefined) return value.N.length;
  if (value.B !== undefined) return Math.ceil((value.B.length * 3) / 4);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [name, child]) => sum + 1 + bytes(name) + valueSize(child), 0);
  if (value.L) return 3 + value.L.reduce((sum, child) => sum + 1 + valueSize(child), 0);
  const set = value.SS ?? value.NS ?? value.BS ?? [];
  return set.reduce((sum, member) => sum + bytes(member), 0);
}

/** The size of a marshalled item (or of the values an update writes). */
export function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + bytes(name) + valueSize(value), 0);
}

interface WriteInput {
  Item?: Record<string, AttributeValue>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
  TransactItems?: Array<{ Put?: WriteInput; Update?: WriteInput }>;
  RequestItems?: Record<string, Array<{ PutRequest?: WriteInput }>>;
}

/** Every item (and every update's values) a write request carries. */
function writtenItems(input: WriteInput): Array<Record<string, AttributeValue>> {
  const items: Array<Record<string, AttributeValue> | undefined> = [input.Item, input.ExpressionAttributeValues];
  for (const action of input.TransactItems ?? []) items.push(action.Put?.Item, action.Update?.ExpressionAttributeValues);
  for (const requests of Object.values(input.RequestItems ?? {})) for (const request of requests) items.push(request.PutRequest?.Item);
  return items.filter((item): item is Record<string, AttributeValue> => item !== undefined);
}

/**
 * Refuses, with a 400, a write that would store an item over DynamoDB's 400 KB: the caller sent an object
 * too large to keep (DynamoDB's own refusal would surface as a 500). Only requests whose JSON body is over
 * the limit are looked at: an item is never larger than its JSON encoding.
 */
export function guardItemSizes(client: DynamoDBClient): DynamoDBClient {
  client.middlewareStack.add(
    (next) => async (args) => {
      // The serialized JSON body: a string, or (newer SDKs) a string-like adapter with a length.
      const body = (args.request as { body?: { length?: number } | string }).body;
      if (body !== undefined && body !== null && (body.length ?? 0) > maxItemBytes) {
        for (const item of writtenItems(JSON.parse(String(body)) as WriteInput)) {
          if (itemSize(item) > maxItemBytes) {
            throw new InvalidRequestError(
              `The object is too large to store: it would take more than ${Math.floor(maxItemBytes / 1024)} KB. Send fewer or shorter values.`,
              'object_too_large',
            );
          }
        }
      }
      return next(args);
    },
    { step: 'build', name: 'itemSizeGuard' },
  );
  return client;
}
