import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Stripe from 'stripe';
import { localDataDir, localStackStateFile, type LocalStackState } from '#local/state-file.ts';

/** The stack the commands talk to and the secret key they act with. */
export interface CliTarget {
  baseUrl: string;
  apiKey: string;
}

/** A problem the user can fix (no key, a bad flag): printed without a stack trace. */
export class CliError extends Error {}

const defaultBaseUrl = 'http://127.0.0.1:4242';

function readJson<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * `--api-base`, else the running `npm start` (its state file), else the default address; `--api-key`, else
 * `SERVICE_SECRET_KEY` (which pins the default platform's key), else the default platform's key that
 * `npm start` keeps in `.data/default-platform.json`, the one the dashboard opens on.
 */
export function resolveTarget(options: { apiBase?: string; apiKey?: string }): CliTarget {
  const state = readJson<LocalStackState>(localStackStateFile);
  const baseUrl = (options.apiBase ?? state?.baseUrl ?? defaultBaseUrl).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CliError(`--api-base must be a URL such as ${defaultBaseUrl}, not '${baseUrl}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--api-base must be an http or https URL, not '${baseUrl}'.`);
  const apiKey =
    options.apiKey ?? process.env.SERVICE_SECRET_KEY ?? readJson<{ secret_key?: string }>(resolve(localDataDir, 'default-platform.json'))?.secret_key;
  if (!apiKey) {
    throw new CliError(
      "No API key: pass --api-key sk_test_… (a stack started with --in-memory prints its key at start), or start the stack with 'npm start', whose default platform's key is used.",
    );
  }
  if (!/^sk_(test|live)_/.test(apiKey)) throw new CliError('--api-key must be a secret key (sk_test_… or sk_live_…).');
  return { baseUrl, apiKey };
}

/** The official SDK pointed at the target, as a user configures it for the local stack. */
export function sdkFor(target: CliTarget): Stripe {
  const url = new URL(target.baseUrl);
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return new Stripe(target.apiKey, {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || (protocol === 'https' ? 443 : 80)),
    protocol,
    maxNetworkRetries: 2,
  });
}
