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

/** `127.0.0.1`, `localhost`, `[::1]` (any port): the names a request to this machine's loopback carries. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  // `[::1]` or `[::1]:4242`, nothing after the port; a name, with or without a port.
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (host.startsWith('[') && !bracketed) return false;
  const name = bracketed ? bracketed[1] : host.replace(/:\d*$/, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Answers 403 to a request whose `Host` is not a loopback name, and says whether it did: a web page the
 * developer visits can make the browser send requests to 127.0.0.1 under a name it controls (DNS
 * rebinding), and would then read what the local receivers recorded.
 */
export function refusedForeignHost(request: IncomingMessage, response: ServerResponse): boolean {
  if (isLoopbackHost(request.headers.host)) return false;
  sendJson(response, 403, {
    error: { type: 'invalid_request_error', code: 'host_not_allowed', message: 'The local stack answers requests to 127.0.0.1, localhost or [::1] only.' },
  });
  return true;
}

/**
 * Answers 415 to a post that a page of another site could have made, and says whether it did: only a JSON
 * body (which a page cannot post across origins without a preflight this server never approves), and, when
 * the browser names the page's origin, a loopback one.
 */
export function refusedCrossSitePost(request: IncomingMessage, response: ServerResponse): boolean {
  const origin = request.headers.origin;
  if ((origin === undefined || isLoopbackHost(origin.replace(/^https?:\/\//, ''))) && /^application\/json\b/i.test(request.headers['content-type'] ?? ''))
    return false;
  sendJson(response, 415, {
    error: {
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
      message: 'Post a JSON body (Content-Type: application/json) from this machine.',
      param: null,
    },
  });
  return true;
}
