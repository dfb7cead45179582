import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { LocalStackState } from '#local/state-file.ts';
import { api, platformStore, scanStackTable, stack } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const run = promisify(execFile);

/** Runs `npm run admin -- …` the way an operator would, against the test stack. */
async function admin(args: string[], env: Record<string, string>) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout);
}

/** A state file like the one `npm start` writes, pointing at the test stack. */
function localStackDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'service-admin-'));
  const state: LocalStackState = {
    pid: process.pid,
    baseUrl: stack.baseUrl,
    dynamodbEndpoint: stack.env.DYNAMODB_ENDPOINT!,
    sqsEndpoint: stack.env.SQS_ENDPOINT!,
    credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! },
    region: stack.env.AWS_REGION!,
    tableName: stack.env.TABLE_NAME!,
  };
  writeFileSync(join(dir, 'local-stack.json'), JSON.stringify(state));
  return dir;
}

const deployedTableEnv = () => ({
  TABLE_NAME: '',
  DYNAMODB_ENDPOINT: stack.env.DYNAMODB_ENDPOINT!,
  AWS_REGION: stack.env.AWS_REGION!,
  AWS_ACCESS_KEY_ID: stack.env.AWS_ACCESS_KEY_ID!,
  AWS_SECRET_ACCESS_KEY: stack.env.AWS_SECRET_ACCESS_KEY!,
});

describe('admin create-platform', () => {
  it('creates a working platform on the running local stack and prints its keys as JSON', async () => {
    // When
    const platform = await admin(['create-platform'], { SERVICE_DATA_DIR: localStackDataDir(), TABLE_NAME: '' });

    // Then the printed keys work at once and the account is a platform with accounts v2 on
    expect(Object.keys(platform).sort()).toEqual(['account', 'publishable_key', 'secret_key']);
    expect(platform.secret_key).toMatch(/^sk_test_/);
    expect(platform.publishable_key).toMatch(/^pk_test_/);
    expect((await api('GET', '/v1/webhook_endpoints', { key: platform.secret_key })).status).toBe(200);
    expect(await platformStore().getAccount(platform.account)).toMatchObject({ platformId: null, features: { accountsV2: true } });
  });

  it('creates live-mode keys and turns the accounts v2 feature off on request, against a named table', async () => {
    const platform = await admin(['create-platform', '--live', '--no-accounts-v2', '--table', stack.env.TABLE_NAME!], deployedTableEnv());

    expect(platform.secret_key).toMatch(/^sk_live_/);
    expect(await platformStore().getAccount(platform.account)).toMatchObject({ features: { accountsV2: false } });
    const created = await api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'url=https://example.test/h&enabled_events[0]=*' });
    expect(created.body.livemode).toBe(true);
  });

  it('adds keys of the other mode and shows only key hints', async () => {
    const platform = await admin(['create-platform', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const live = await admin(['create-keys', platform.account, '--live', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const shown = await admin(['show-platform', platform.account, '--table', stack.env.TABLE_NAME!], deployedTableEnv());

    expect(live.account).toBe(platform.account);
    expect(shown.keys).toHaveLength(4);
    expect(JSON.stringify(shown)).not.toContain(platform.secret_key);
    expect(shown.keys.map((key: { hint: string }) => key.hint)).toContain(`sk_live_…${live.secret_key.slice(-4)}`);
  });

  it('never stores a key in clear', async () => {
    const platform = await admin(['create-platform', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const dump = JSON.stringify(await scanStackTable());
    expect(dump).toContain(platform.account);
    expect(dump).not.toContain(platform.secret_key);
    expect(dump).not.toContain(platform.publishable_key);
  });
});

describe('admin roll-key and revoke-key', () => {
  it('rolls a key (the old one stops working within the cache window, the new one works at once) and revokes the new one', async () => {
    const platform = await admin(['create-platform', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const status = async (key: string) => (await api('GET', '/v1/customers', { key })).status;
    expect(await status(platform.secret_key)).toBe(200);

    const rolled = await admin(['roll-key', platform.secret_key, '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    expect(rolled).toMatchObject({ account: platform.account, rolled: `sk_test_…${platform.secret_key.slice(-4)}` });
    expect(rolled.key).toMatch(/^sk_test_/);
    expect(await status(rolled.key)).toBe(200);
    // Then within the key cache window the old key answers 401
    await eventually(async () => ((await status(platform.secret_key)) === 401 ? true : undefined), 5_000);
    const refused = await api('GET', '/v1/customers', { key: platform.secret_key });
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_expired' });

    const shown = await admin(['show-platform', platform.account, '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const newHash = shown.keys.find((key: { hint: string }) => key.hint === `sk_test_…${rolled.key.slice(-4)}`).sha256;
    await admin(['revoke-key', newHash, '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    await eventually(async () => ((await status(rolled.key)) === 401 ? true : undefined), 5_000);
  });

  it('gives a rolled key a grace period when asked', async () => {
    const platform = await admin(['create-platform', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    const rolled = await admin(['roll-key', platform.secret_key, '--expires-in-hours', '1', '--table', stack.env.TABLE_NAME!], deployedTableEnv());
    expect(Date.parse(rolled.rolled_key_expires_at)).toBeGreaterThan(Date.now() + 3_500_000);
    expect((await api('GET', '/v1/customers', { key: platform.secret_key })).status).toBe(200);
    expect((await api('GET', '/v1/customers', { key: rolled.key })).status).toBe(200);
  });
});
