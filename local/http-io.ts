import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The whole request body, or undefined once it passes `limit` bytes (the rest is read and dropped, never buffered). */
export function readCapped(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        resolveBody(undefined);
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolveBody(size > limit ? undefined : Buffer.concat(chunks, size)));
    request.on('error', reject);
  });
}

/** Answers with a JSON body and its length. */
export function sendJson(response: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) });
  response.end(payload);
}

/** Listens on 127.0.0.1 (a free port unless one is given) and resolves with the port. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen());
  });
  return (server.address() as AddressInfo).port;
}

/** Stops accepting connections and drops the open ones. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
