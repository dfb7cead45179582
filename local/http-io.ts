import type { IncomingMessage, ServerResponse } from 'node:http';

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
