import { createHmac, timingSafeEqual } from 'node:crypto';
import { logger } from '#shared/core/logger.ts';
import { derivedKey } from '#shared/platform/account-secrets.ts';
import type { QueueName } from './queues.ts';

/**
 * The seal on a queue's messages: a message is a pointer, not the truth, and the workers act only on those
 * the service wrote. Whoever can put a message on a queue (an SQS grant on AWS, any page that reaches the
 * emulator locally) cannot make one a worker accepts without the service secret, which lives in the table.
 */
export interface QueueSeal {
  /** The bodies as they go on the queue: each behind the MAC of its queue and content. */
  seal(bodies: string[]): Promise<string[]>;
  /** The body a message carries if the service sealed it for this queue, unaltered; undefined otherwise. */
  open(message: string): Promise<string | undefined>;
}

/** Characters of a SHA-256 MAC in base64url, and the dot after it. */
const macLength = 43;

/**
 * Seals one queue's messages as `<MAC>.<body>`: HMAC-SHA256 over the queue's name and the body, keyed by
 * the service secret's `queue-message` key (read once per process through `secret`). A message sealed for
 * one queue does not open on another.
 */
export function queueSeal(secret: () => Promise<Buffer>, queue: QueueName): QueueSeal {
  let key: Promise<Buffer> | undefined;
  const keyOf = (): Promise<Buffer> => {
    if (!key) {
      const reading = secret().then((bytes) => derivedKey(bytes, 'queue-message'));
      // A failed read is not kept: the next message tries again.
      reading.catch(() => {
        if (key === reading) key = undefined;
      });
      key = reading;
    }
    return key;
  };
  const mac = (bytes: Buffer, body: string) => createHmac('sha256', bytes).update(`${queue}\n${body}`).digest('base64url');

  return {
    async seal(bodies) {
      const bytes = await keyOf();
      return bodies.map((body) => `${mac(bytes, body)}.${body}`);
    },
    async open(message) {
      if (message.length <= macLength || message[macLength] !== '.') return undefined;
      const given = Buffer.from(message.slice(0, macLength));
      const body = message.slice(macLength + 1);
      const expected = Buffer.from(mac(await keyOf(), body));
      return given.length === expected.length && timingSafeEqual(given, expected) ? body : undefined;
    },
  };
}

/** What a worker needs of an SQS record to open it. */
export interface QueueRecord {
  messageId: string;
  body: string;
  attributes?: { SenderId?: string };
}

/**
 * The body of a record the service sealed for `queue`. Anything else is refused: logged once, with who sent
 * it, and dropped (undefined), so it is neither acted on nor retried; the worker reports it handled.
 */
export async function openRecord(seal: QueueSeal, queue: QueueName, record: QueueRecord): Promise<string | undefined> {
  const body = await seal.open(record.body);
  if (body === undefined) {
    logger.error('Refused a queue message the service did not seal', {
      refusedMessage: true,
      queue,
      messageId: record.messageId,
      senderId: record.attributes?.SenderId,
      bytes: Buffer.byteLength(record.body),
    });
  }
  return body;
}
