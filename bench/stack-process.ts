import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';

/** A local stack started as `npm start` starts it, in a child process, as a user meets it. */
export interface StackProcess {
  /** The official Node SDK with the default platform's secret key, no retries. */
  client: Stripe;
  /** Milliseconds from spawning the process to its `Ready` line. */
  readyMs: number;
  /** The process's standard output, once ready (its `aws-calls` lines with LOCAL_AWS_CALLS=true). */
  stdout: ChildProcessWithoutNullStreams['stdout'];
  /** Stops the process and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts `local/start.ts` in a child process with its own temporary data directory (or `--in-memory`) and
 * `env` over this process's environment, and resolves once it prints that it is ready.
 */
export async function startStackProcess({ inMemory, env = {} }: { inMemory: boolean; env?: Record<string, string> }): Promise<StackProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-bench-'));
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts', '--port', '0', ...(inMemory ? ['--in-memory'] : [])], {
    env: { ...process.env, ...env, SERVICE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  }) as unknown as ChildProcessWithoutNullStreams;
  const { baseUrl, secretKey } = await new Promise<{ baseUrl: string; secretKey: string }>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Service API listening on (\S+)/.exec(output)?.[1];
      const key = /secret key\s+(\S+)/.exec(output)?.[1];
      if (url && key && output.includes('Ready in')) resolve({ baseUrl: url, secretKey: key });
    });
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it was ready:\n${output}`)));
  });
  const readyMs = performance.now() - startedAt;
  const { hostname, port } = new URL(baseUrl);
  return {
    client: new Stripe(secretKey, { host: hostname, port: Number(port), protocol: 'http', maxNetworkRetries: 0 }),
    readyMs,
    stdout: child.stdout,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
