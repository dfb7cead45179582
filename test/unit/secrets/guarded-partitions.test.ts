import { describe, expect, it } from 'vitest';
import { allows, type Permission } from '#functions/permissions.ts';
import { accountSecretEntity } from '#shared/data/account-secret-store.ts';
import { accountSecret } from '#shared/data/keys.ts';

const noQueues = () => undefined;
const onSecret = (action: string) => ({ action: `dynamodb:${action}`, resource: accountSecret.pk('acct_1') });
const reads: Permission[] = ['table:read', 'table:count-requests'];
const pagedReads: Permission[] = [...reads, 'table:read-account-secrets'];
const writes: Permission[] = [...pagedReads, 'table:create-account-secrets', 'table:write'];

describe('account secret partitions in the local IAM emulation', () => {
  it("refuses a read-only route's GetItem and PutItem of an account secret, as the role's explicit Deny does", () => {
    expect(allows(reads, onSecret('GetItem'), noQueues)).toBe(false);
    expect(allows(reads, onSecret('BatchGetItem'), noQueues)).toBe(false);
    expect(allows(reads, onSecret('PutItem'), noQueues)).toBe(false);
    // …while the rest of the table stays readable
    expect(allows(reads, { action: 'dynamodb:GetItem', resource: 'OWNER#acct_1#test' }, noQueues)).toBe(true);
  });

  it('lets a paged read route read account secrets, never write them', () => {
    expect(allows(pagedReads, onSecret('GetItem'), noQueues)).toBe(true);
    expect(allows(pagedReads, onSecret('PutItem'), noQueues)).toBe(false);
    expect(allows(pagedReads, onSecret('UpdateItem'), noQueues)).toBe(false);
  });

  it('lets a write route read and create them, but not a worker that only has table:read and table:write', () => {
    expect(allows(writes, onSecret('GetItem'), noQueues)).toBe(true);
    expect(allows(writes, onSecret('PutItem'), noQueues)).toBe(true);
    const worker: Permission[] = ['table:read', 'table:write', 'table:delete'];
    expect(allows(worker, onSecret('GetItem'), noQueues)).toBe(false);
    expect(allows(worker, onSecret('PutItem'), noQueues)).toBe(false);
    expect(allows(worker, onSecret('DeleteItem'), noQueues)).toBe(false);
  });

  it('maps secrets:seal to kms:GenerateDataKey and secrets:open to kms:Decrypt, and nothing else', () => {
    const key = 'arn:aws:kms:us-east-1:000000000000:key/k';
    expect(allows(['secrets:seal'], { action: 'kms:GenerateDataKey', resource: key }, noQueues)).toBe(true);
    expect(allows(['secrets:seal'], { action: 'kms:Decrypt', resource: key }, noQueues)).toBe(false);
    expect(allows(['secrets:open'], { action: 'kms:Decrypt', resource: key }, noQueues)).toBe(true);
    expect(allows(['secrets:open'], { action: 'kms:Encrypt', resource: key }, noQueues)).toBe(false);
    expect(allows(['table:read', 'table:write'], { action: 'kms:Decrypt', resource: key }, noQueues)).toBe(false);
  });
});

describe('account secret entity', () => {
  it("writes a new account's secret in the account's creating transaction, once (a fresh 32-byte secret, conditional)", () => {
    const first = accountSecretEntity.createWithAccount('t', 'acct_1');
    const second = accountSecretEntity.createWithAccount('t', 'acct_1');
    expect(first.Put).toMatchObject({
      TableName: 't',
      Item: { PK: 'ACCOUNT_SECRET#acct_1', SK: 'SECRET', entity: 'account_secret', accountId: 'acct_1' },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(accountSecretEntity.parse(first.Put!.Item!)).toHaveLength(32);
    expect(first.Put!.Item!.secret).not.toBe(second.Put!.Item!.secret);
  });
});
