import { describe, expect, it } from 'vitest';
import { blankAccount, type V2Account } from '#shared/accounts/account.ts';
import { mergeUpdate, withoutIdNumberValues } from '#shared/accounts/merge.ts';
import { capabilityStates, fieldsToCollect, requirementsOf } from '#shared/accounts/requirements.ts';

const account = (overrides: Partial<V2Account> = {}): V2Account => ({
  ...blankAccount('acct_1', { accountId: 'acct_platform', livemode: false }, Date.UTC(2026, 0, 1)),
  ...overrides,
});

const merchant = { merchant: { applied: true, requested: { card_payments: true }, settings: {} } };
const descriptions = (a: V2Account) => requirementsOf(a).requirements.entries.map((entry) => entry.description);

describe('account requirements', () => {
  it('asks nothing of an account that requests no capability', () => {
    expect(requirementsOf(account({ configuration: { merchant: { applied: true, requested: {}, settings: {} } } })).requirements).toEqual({ entries: [] });
  });

  it('asks for country and entity type first, then the names that fit the entity type', () => {
    expect(descriptions(account({ configuration: merchant }))).toEqual(
      expect.arrayContaining(['identity.country', 'identity.entity_type', 'configuration.merchant.mcc']),
    );
    const individual = descriptions(account({ configuration: merchant, identity: { country: 'US', entity_type: 'individual' } }));
    expect(individual).toContain('identity.individual.given_name');
    expect(individual).not.toContain('identity.business_details.registered_name');
    const company = descriptions(account({ configuration: merchant, identity: { country: 'US', entity_type: 'company' } }));
    expect(company).toContain('identity.business_details.registered_name');
    expect(company).not.toContain('identity.individual.given_name');
  });

  it('counts an address only with line1 and country, and restricts the capability while anything is currently due', () => {
    const partial = account({
      configuration: merchant,
      identity: { country: 'US', entity_type: 'company', business_details: { registered_name: 'Acme', address: { city: 'X' } } },
    });
    expect(descriptions(partial)).toContain('identity.business_details.address');
    expect(capabilityStates(partial).merchant.card_payments!.status).toBe('restricted');
  });

  it('keeps eventually due and future requirements apart from what a currently_due link collects', () => {
    const a = account({ configuration: merchant, identity: { country: 'US', entity_type: 'individual' } });
    const current = fieldsToCollect(a, ['merchant'], { fields: 'currently_due', futureRequirements: 'omit' });
    const eventually = fieldsToCollect(a, ['merchant'], { fields: 'eventually_due', futureRequirements: 'include' });
    expect(current).not.toContain('identity.individual.id_numbers');
    expect(eventually).toEqual(expect.arrayContaining([...current, 'identity.individual.id_numbers', 'identity.individual.nationalities']));
    expect(fieldsToCollect(a, ['recipient'], { fields: 'eventually_due', futureRequirements: 'include' })).toEqual([]);
    expect(requirementsOf(a).futureRequirements.minimum_transition_date).toBe('2026-06-30T00:00:00.000Z');
  });
});

describe('v2 update merging', () => {
  it('merges nested objects, removes members set to null, and replaces arrays', () => {
    expect(mergeUpdate({ a: { b: 1, c: 2 }, list: [1, 2], gone: 'x' }, { a: { c: 3 }, list: [9], gone: null })).toEqual({ a: { b: 1, c: 3 }, list: [9] });
  });

  it('drops id number values at any depth', () => {
    expect(withoutIdNumberValues({ individual: { id_numbers: [{ type: 'us_ssn', value: '000000000' }] } })).toEqual({
      individual: { id_numbers: [{ type: 'us_ssn' }] },
    });
  });
});
