import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stack } from './stack.ts';

/** Debian's interpreter: the `python3-stripe` package (stripe-python 5.0.0) installs for it, not for a pyenv `python3`. */
const debianPython = '/usr/bin/python3';

export interface PythonOptions {
  /** The key the SDK sends (`stripe.api_key`). */
  key: string;
  /** `stripe.api_version`; the SDK sends no version header when unset. */
  apiVersion?: string;
  /** Milliseconds before the script is killed. @default 50000 */
  timeoutMs?: number;
}

/** What a script raised: the SDK's error class and what it read from the error body. */
export interface PythonSdkError {
  error: { class: string; http_status: number | null; code: string | null; param: string | null; message: string; type: string | null };
}

/**
 * The prelude every script runs after: the SDK pointed at the local stack as a user would point it
 * (`stripe.api_base`), the JSON input as `args`, and `result` printed as JSON. A `stripe.error.StripeError`
 * becomes `{error: {...}}` instead of a failure, so tests can assert refusals; anything else fails the run.
 */
const wrap = (body: string, options: PythonOptions): string => `
import json, sys
import stripe
stripe.api_base = ${JSON.stringify(stack.baseUrl)}
stripe.api_key = ${JSON.stringify(options.key)}
stripe.api_version = ${options.apiVersion ? JSON.stringify(options.apiVersion) : 'None'}
stripe.max_network_retries = 0
stripe.enable_telemetry = False
args = json.load(sys.stdin)
def main(args):
${body
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
try:
    result = main(args)
except stripe.error.StripeError as error:
    body = (error.json_body or {}).get('error') or {}
    result = {'error': {'class': type(error).__name__, 'http_status': error.http_status, 'code': error.code,
                        'param': getattr(error, 'param', None), 'message': body.get('message', str(error)), 'type': body.get('type')}}
json.dump(result, sys.stdout, default=str)
`;

/**
 * Runs a Python function body against the local stack with Debian's stripe-python 5.0.0, the SDK of an
 * older integration: `args` holds `input`, the body `return`s what the test reads (StripeObjects are
 * dicts, so they come back as JSON). Needs `apt-get install -y python3-stripe` (done by `.ci/run`).
 */
export async function runPython<T = any>(body: string, input: unknown, options: PythonOptions): Promise<T> {
  if (!existsSync('/usr/lib/python3/dist-packages/stripe/__init__.py')) {
    throw new Error("Debian's python3-stripe is not installed: run `apt-get install -y python3-stripe` (as .ci/run does).");
  }
  const child = spawn(debianPython, ['-c', wrap(body, options)], {
    // Loopback only: a proxy in the environment must not see the stack's keys.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', NO_PROXY: '*', no_proxy: '*', PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 50_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin.end(JSON.stringify(input ?? {}));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`python exited with ${code}:\n${stderr.slice(-4000)}`);
  return JSON.parse(stdout) as T;
}
