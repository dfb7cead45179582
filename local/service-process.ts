import { spawn } from 'node:child_process';

export interface ServiceProcess {
  /** The service process (DynamoDB Local runs as its child). */
  pid: number;
  baseUrl: string;
  account: string;
  secretKey: string;
  publishableKey: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Sends SIGTERM and waits for a clean exit, as Ctrl+C on `npm start` does. */
  stop(): Promise<number | null>;
  /** Kills the process outright (SIGKILL), as a crash or a power cut would; its DynamoDB Local goes with it. */
  crash(): Promise<void>;
}

/**
 * Runs `local/start.ts` (what `npm start` runs) in its own process and waits for its banner: for tests
 * of the command itself and for benchmarks that must not share an event loop with the service.
 */
export function startServiceProcess(args: string[], env: Record<string, string> = {}, startTimeoutMs = 30_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // A benchmark or test that dies must not leave a whole stack running behind it.
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killChild);
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The service did not start within ${startTimeoutMs / 1000} s:\n${output}`)), startTimeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!/Ready in/.test(output)) return;
      clearTimeout(timer);
      const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(output)?.[1] ?? '';
      resolve({
        pid: child.pid!,
        baseUrl: /listening on (\S+)/.exec(output)![1]!,
        account: field('account'),
        secretKey: field('secret key'),
        publishableKey: field('publishable key'),
        output: () => output,
        stop: async () => {
          child.kill('SIGTERM');
          return exited;
        },
        crash: async () => {
          child.kill('SIGKILL');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The service exited with code ${code} before it was ready:\n${output}`));
    });
  });
}
