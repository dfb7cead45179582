import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApiDeliveryChecker } from './openapi-responses.ts';

let checkDelivery: ReturnType<typeof openApiDeliveryChecker> | undefined;
/** Deliveries are checked against the committed OpenAPI document (test/unit/openapi/openapi.test.ts keeps it current). */
const deliveryChecker = () => (checkDelivery ??= openApiDeliveryChecker(JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'))));

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Answer the next `count` requests with `status` (then 200 again). */
  failNext(count: number, status?: number): void;
  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening; rejects if any delivery did not match the OpenAPI document's `webhooks`. */
  stop(): Promise<void>;
}

/** A local HTTP endpoint that records every webhook POST, healthy unless told to fail. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const violations: string[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (failures.count > 0) {
        failures.count--;
        response.writeHead(failures.status).end('not now');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const problem = deliveryChecker()(request.headers, body);
      if (problem) violations.push(`${problem}: ${body.slice(0, 300)}`);
      received.push({ path: request.url ?? '', headers: request.headers, body, receivedAt: Date.now() });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`Expected ${count} webhook requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received;
    },
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (violations.length > 0) throw new Error(`Deliveries that do not match the OpenAPI document's webhooks:\n${violations.join('\n')}`);
    },
  };
}
