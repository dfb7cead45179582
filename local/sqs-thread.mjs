// The SQS emulator's own thread: fauxqs on 127.0.0.1 and a free port (its own starter listens on every
// interface). Posts the port once listening; closes on 'stop'.
import { parentPort, workerData } from 'node:worker_threads';
import { buildApp } from 'fauxqs';

// The emulator reads Date.now for message delays and visibility timeouts: in this thread it runs on the
// local stack's clock (local/clock.ts), so moving that clock forward makes what it delayed due at once.
const clockOffset = workerData?.clockOffset;
if (clockOffset) {
  const machineNow = Date.now;
  Date.now = () => machineNow() + Number(Atomics.load(clockOffset, 0));
}

const app = buildApp({ logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
parentPort.postMessage({ port: typeof address === 'object' && address ? address.port : 0 });
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  await app.close();
  parentPort.close();
});
