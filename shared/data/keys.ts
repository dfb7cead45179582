import type { Scope } from '#shared/platform/types.ts';

/**
 * Every key string of the single table. No other module writes a key template; TABLE_DESIGN.md
 * documents the entities and access patterns these functions serve.
 */

const mode = (livemode: boolean): string => (livemode ? 'live' : 'test');

/** The partition that holds everything one account owns in one mode. */
export const ownerPk = (scope: Scope): string => `OWNER#${scope.accountId}#${mode(scope.livemode)}`;

export const account = {
  pk: (accountId: string) => `ACCOUNT#${accountId}`,
  sk: () => 'ACCOUNT',
};

export const apiKey = {
  pk: (hash: string) => `APIKEY#${hash}`,
  sk: () => 'APIKEY',
  /** GSI1: the keys of one account, oldest first. */
  gsi1pk: (accountId: string) => `ACCOUNT#${accountId}#APIKEYS`,
  gsi1sk: (created: number, hash: string) => `APIKEY#${String(created).padStart(15, '0')}#${hash}`,
};

export const webhookEndpoint = {
  pk: ownerPk,
  sk: (id: string) => `WEBHOOK_ENDPOINT#${id}`,
  /** begins_with prefix of every webhook endpoint in an owner partition. */
  skPrefix: () => 'WEBHOOK_ENDPOINT#',
};

/** Per-owner counters that enforce limits atomically (for example the webhook endpoint cap). */
export const counter = {
  pk: ownerPk,
  sk: (name: string) => `COUNTER#${name}`,
};

export const idempotency = {
  pk: (scope: Scope, key: string) => `IDEMPOTENCY#${scope.accountId}#${mode(scope.livemode)}#${key}`,
  sk: () => 'IDEMPOTENCY',
};
