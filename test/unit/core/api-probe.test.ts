import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeApi, probeKey } from '#shared/core/api-probe.ts';

/** A server on 127.0.0.1 answering as `listener` says; closed after each test. */
const servers: Array<{ close: () => void }> = [];
async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe('the API probe', () => {
  it('passes on the API’s 401 for its unknown key, having sent that key to the read path', async () => {
    let seen: { url?: string; authorization?: string } = {};
    const url = await serve((request, response) => {
      seen = { url: request.url, authorization: request.headers.authorization };
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { type: 'authentication_error', message: 'Invalid API Key provided' } }));
    });

    const result = await probeApi(url);

    expect(result).toMatchObject({ ok: true, status: 401 });
    expect(seen).toEqual({ url: '/v1/customers?limit=1', authorization: `Bearer ${probeKey}` });
  });

  it('fails on a 5xx, on a 401 that is not the API’s, on no answer in time, and on nobody listening', async () => {
    const failing = await serve((_, response) => response.writeHead(503).end('Service Unavailable'));
    const foreign = await serve((_, response) => response.writeHead(401).end('<html>login</html>'));
    const silent = await serve(() => {});
    const closed = await serve(() => {});
    servers.pop()!.close();

    expect(await probeApi(failing)).toMatchObject({ ok: false, status: 503, problem: 'expected 401, got 503' });
    expect(await probeApi(foreign)).toMatchObject({ ok: false, status: 401, problem: 'the 401 is not the API’s error body' });
    expect(await probeApi(silent, 200)).toMatchObject({ ok: false, status: null });
    expect(await probeApi(closed)).toMatchObject({ ok: false, status: null });
  });
});
