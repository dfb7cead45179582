// The SQS emulator's own thread: fauxqs on 127.0.0.1 and a free port (its own starter listens on every
// interface). Posts the port once listening; closes on 'stop'.
import { parentPort } from 'node:worker_threads';
import { buildApp } from 'fauxqs';

const app = buildApp({ logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
parentPort.postMessage({ port: typeof address === 'object' && address ? address.port : 0 });
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  await app.close();
  parentPort.close();
});
