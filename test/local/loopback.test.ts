import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '#local/stack.ts';

/** This process and every process below it (DynamoDB Local's JVM among them). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** The local address of every TCP socket those processes listen on, as `address:port`. */
function listeningAddresses(pids: number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = (() => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })();
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match) inodes.add(match[1]!);
      }
    } catch {
      // gone meanwhile
    }
  }
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      const [hex, port] = fields[1]!.split(':');
      addresses.push(`${decodeAddress(hex!)}:${parseInt(port!, 16)}`);
    }
  }
  return addresses;
}

/** /proc/net/tcp{,6} addresses: 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(''));
  if (words.length === 1)
    return words[0]!
      .match(/../g)!
      .map((byte) => parseInt(byte, 16))
      .join('.');
  const full = words.join('').toLowerCase();
  if (full.startsWith('00000000000000000000ffff'))
    return `::ffff:${full
      .slice(24)
      .match(/../g)!
      .map((byte) => parseInt(byte, 16))
      .join('.')}`;
  return full
    .match(/.{4}/g)!
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':');
}

const loopback = (address: string) => /^(127\.\d+\.\d+\.\d+|::ffff:127\.\d+\.\d+\.\d+|0:0:0:0:0:0:0:1):\d+$/.test(address);

function get(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.runIf(process.platform === 'linux')('the local stack on the network', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startLocalStack({ port: 0, quiet: true });
  }, 120_000);
  afterAll(() => stack?.stop());

  it('listens on loopback only: the API, DynamoDB Local, the SQS emulator and the receivers', () => {
    // When every TCP socket the stack's processes listen on is listed
    const addresses = listeningAddresses(processTree(process.pid));

    // Then there are several (the JVM's among them), and each is bound to a loopback address
    expect(addresses.length).toBeGreaterThanOrEqual(5);
    expect(addresses.some((address) => address.endsWith(`:${new URL(stack.dynamodbEndpoint).port}`))).toBe(true);
    expect(addresses.filter((address) => !loopback(address))).toEqual([]);
  });

  it("answers a Scan with the stack's own credentials on the advertised DynamoDB endpoint only", async () => {
    // Given every port the stack's processes listen on (DynamoDB Local's JVM, which checks the caller itself, among them)
    const ports = listeningAddresses(processTree(process.pid)).map((address) => Number(address.slice(address.lastIndexOf(':') + 1)));
    const advertised = Number(new URL(stack.dynamodbEndpoint).port);

    // When each is sent a Scan from a loopback Host, signed with the key id the engines take
    const scans = await Promise.all(
      [...new Set(ports)].map(async (port) => {
        const response = await fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'DynamoDB_20120810.Scan',
            authorization: `AWS4-HMAC-SHA256 Credential=${stack.engineCredentials.accessKeyId}/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
          },
          body: JSON.stringify({ TableName: stack.env.TABLE_NAME }),
        }).catch(() => undefined);
        return { port, answered: response?.status === 200 && /"Items"/.test(await response.text()) };
      }),
    );

    // Then only the advertised endpoint hands out items
    expect(scans.length).toBeGreaterThanOrEqual(5);
    expect(scans.filter((scan) => scan.answered).map((scan) => scan.port)).toEqual([advertised]);
  });

  it('refuses /_local/* and the receivers to a Host that is not a loopback name (DNS rebinding)', async () => {
    const port = new URL(stack.baseUrl).port;
    expect(await get(`${stack.baseUrl}/_local/eventbridge/entries`, 'evil.example')).toBe(403);
    expect(await get(`${stack.baseUrl}/_local/event-grid/events`, `rebind.example:${port}`)).toBe(403);
    expect(await get(`${stack.baseUrl}/_local/clock`, 'evil.example')).toBe(403);
    expect(await get(`${stack.eventBridge.endpoint}/entries`, 'evil.example')).toBe(403);
    expect(await get(`${stack.eventGrid.endpoint}/events`, 'evil.example')).toBe(403);
    expect(await get(`${stack.baseUrl}/_local/eventbridge/entries`, `127.0.0.1:${port}`)).toBe(200);
    expect(await get(`${stack.baseUrl}/_local/eventbridge/entries`, `localhost:${port}`)).toBe(200);
    expect(await get(`${stack.baseUrl}/_local/clock`, `localhost:${port}`)).toBe(200);
  });

  it("refuses the stack's own webhooks on /_local/*, and anything but GET and DELETE on the receivers' lists", async () => {
    // A test-mode endpoint may target 127.0.0.1: pointed at the stack itself, its signed POST must not read or move anything
    const signed = { 'service-signature': 't=1,v1=00', 'content-type': 'application/json' };
    expect((await fetch(`${stack.baseUrl}/_local/eventbridge/entries`, { method: 'POST', headers: signed, body: '{}' })).status).toBe(403);
    expect((await fetch(`${stack.baseUrl}/_local/clock`, { method: 'POST', headers: signed, body: '{"advance":"1s"}' })).status).toBe(403);
    expect((await fetch(`${stack.baseUrl}/_local/eventbridge/entries`, { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await fetch(`${stack.baseUrl}/_local/event-grid/events`, { method: 'DELETE' })).status).toBe(200);
  });
});
