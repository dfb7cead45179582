// The SQS emulator's own thread: fauxqs on 127.0.0.1 and a free port (its own starter listens on every
// interface), taking only loopback Hosts and the stack's access key id. Posts the port once listening;
// closes on 'stop'.
import { parentPort, workerData } from 'node:worker_threads';
import { buildApp } from 'fauxqs';
import { refusedEngineCall } from './engine-guard.ts';
import type { SqsThreadSetup } from './sqs.ts';

const setup = workerData as SqsThreadSetup;
const port = parentPort!;

// The emulator reads Date.now for message delays and visibility timeouts: in this thread it runs on the
// local stack's clock (local/clock.ts), so moving that clock forward makes what it delayed due at once.
if (setup.clockOffset) {
  const offset = setup.clockOffset;
  const machineNow = Date.now;
  Date.now = () => machineNow() + Number(Atomics.load(offset, 0));
}

const accessKeyId = Buffer.from(setup.credentials.accessKeyId);
const app = buildApp({ logger: false });
// Before routing and body parsing, for every route fauxqs has: SQS, its SNS-style form actions, S3, /_fauxqs.
app.addHook('onRequest', (request, reply, done) => {
  if (!refusedEngineCall(request.raw, reply.raw, 'SQS', accessKeyId)) return done();
  reply.hijack();
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
port.postMessage({ port: typeof address === 'object' && address ? address.port : 0 });
port.on('message', async (message) => {
  if (message !== 'stop') return;
  await app.close();
  port.close();
});
