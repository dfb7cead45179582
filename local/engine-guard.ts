import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EmulatorCredentials } from './engine-clients.ts';
import { closeServer, listenOnLoopback, refusedForeignHost, sendJson } from './http-io.ts';

/**
 * The AWS credentials one start of the local stack hands to every client it builds: 128 random bits in the
 * key id, which is what the engines check. A page that rebinds its name to 127.0.0.1, or another user of the
 * machine, cannot read them (they live in the stack's environment and in its owner-only state file).
 */
export function newEngineCredentials(): EmulatorCredentials {
  return { accessKeyId: `LOCAL${randomBytes(16).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64url') };
}

/** Which engine answers: each words a refused key as AWS's own service does, so that its SDK names the error. */
export type EngineName = 'DynamoDB Local' | 'SQS';

const refusals: Record<EngineName, { status: number; type: string }> = {
  'DynamoDB Local': { status: 400, type: 'com.amazonaws.dynamodb.v20120810#UnrecognizedClientException' },
  SQS: { status: 403, type: 'com.amazon.coral.service#InvalidClientTokenId' },
};

/**
 * Answers a call to a local engine that did not come from the stack's own clients, and says whether it did:
 * a `Host` that is not a loopback name gets the stack's 403 `host_not_allowed` (DNS rebinding), a call whose
 * SigV4 `Authorization` header does not carry the start's access key id (absent, another key, a form post
 * with no header at all) gets the engine's own "invalid security token" error. Only the key id is compared:
 * the stack's clients skip computing signatures (`shared/aws/sdk-clients.ts`), and the key id is the secret.
 */
export function refusedEngineCall(request: IncomingMessage, response: ServerResponse, engine: EngineName, accessKeyId: Buffer): boolean {
  if (refusedForeignHost(request, response)) return true;
  const presented = /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\//.exec(request.headers.authorization ?? '')?.[1];
  if (presented !== undefined && sameKeyId(Buffer.from(presented), accessKeyId)) return false;
  const { status, type } = refusals[engine];
  const message =
    presented === undefined
      ? `Request is missing Authentication Token: the local stack's ${engine} takes only calls signed with the access key id its stack generated at start.`
      : `The security token included in the request is invalid: the local stack's ${engine} takes only the access key id its stack generated at start (AWS_ACCESS_KEY_ID of its handlers, accessKeyId in local-stack.json).`;
  sendJson(response, status, { __type: type, message }, 'application/x-amz-json-1.0');
  return true;
}

const sameKeyId = (presented: Buffer, expected: Buffer) => presented.length === expected.length && timingSafeEqual(presented, expected);

/** Connection-level headers: each hop has its own. */
const hopByHop = ['connection', 'keep-alive', 'proxy-connection', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  for (const name of hopByHop) delete headers[name];
  return headers;
}

export interface EngineGuard {
  /** `http://127.0.0.1:<port>`: where the stack's clients reach the engine. */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 and a free port, and forwards to the engine on `upstreamPort` every call
 * {@link refusedEngineCall} lets through, over kept-alive connections. Only for DynamoDB Local started from
 * its plain JAR (no `javac` to build the loopback launcher, which makes the same checks itself without the
 * hop: `local/java/LoopbackDynamoDbLocal.java`); the SQS emulator runs the check in its own server.
 */
export async function startEngineGuard(options: { engine: EngineName; upstreamPort: number; credentials: EmulatorCredentials }): Promise<EngineGuard> {
  const accessKeyId = Buffer.from(options.credentials.accessKeyId);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (refusedEngineCall(request, response, options.engine, accessKeyId)) return;
    const headers = endToEnd(request.headers);
    const upstream = forward({ host: '127.0.0.1', port: options.upstreamPort, method: request.method, path: request.url, headers, agent }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(response);
    });
    upstream.on('error', (error) => {
      if (response.headersSent) response.destroy(error);
      else sendJson(response, 502, { __type: 'InternalFailure', message: `${options.engine} did not answer: ${error.message}` }, 'application/x-amz-json-1.0');
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      await closeServer(server);
      agent.destroy();
    },
  };
}
