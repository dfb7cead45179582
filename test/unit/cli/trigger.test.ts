import { describe, expect, it } from 'vitest';
import { snapshotEventTypes, thinEventTypes } from '#shared/events/catalogue.ts';
import { forwardUrl } from '../../../scripts/cli/listen.ts';
import { CliError, resolveTarget } from '../../../scripts/cli/target.ts';
import { applyEdits, closeMatches, fixtureFor, triggerableTypes } from '../../../scripts/cli/trigger.ts';

describe('cli trigger: the fixtures and their edits, offline', () => {
  it('Given the catalogue, then every type trigger supports is one the service emits, its thin mirrors included', () => {
    const emitted = new Set<string>([...snapshotEventTypes, ...thinEventTypes]);
    expect(triggerableTypes().filter((type) => !emitted.has(type))).toEqual([]);
    expect(triggerableTypes()).toEqual(
      expect.arrayContaining(['customer.created', 'v1.customer.created', 'invoice.payment_failed', 'v2.core.account.created']),
    );
  });

  it('Given every fixture, then each step a later step refers to (a step:path reference) comes before it, and step names are unique', () => {
    for (const type of triggerableTypes()) {
      const names: string[] = [];
      for (const step of fixtureFor(type).steps) {
        const text = JSON.stringify({ path: step.path, params: step.params, bearer: step.bearer });
        for (const [, name] of text.matchAll(/\$\{([a-z0-9_]+):/g)) expect(names, `${type}: ${step.name} refers to ${name}`).toContain(name);
        expect(names, `${type}: ${step.name} twice`).not.toContain(step.name);
        names.push(step.name);
      }
    }
  });

  it('Given a misspelt type, when its fixture is asked for, then the error names it and the close matches', () => {
    expect(() => fixtureFor('customer.craeted')).toThrow(CliError);
    expect(() => fixtureFor('customer.craeted')).toThrow(/Unknown event type 'customer.craeted'.\nDid you mean:\n {2}customer.created/);
    expect(closeMatches('invoice.pay')).toEqual(expect.arrayContaining(['invoice.paid']));
  });

  it('Given a reference type the service does not emit, when its fixture is asked for, then the error says so rather than "unknown"', () => {
    expect(() => fixtureFor('payment_intent.succeeded')).toThrow(
      /'payment_intent.succeeded' is an event type of the reference API that this service does not emit/,
    );
    expect(() => fixtureFor('issuing_authorization.request')).toThrow(/emits 'issuing_authorization.request', but trigger has no fixture for it/);
  });

  it('Given --override, --add and --remove, then override sets (nested paths too), add fills only what is missing, remove deletes, and the fixture itself is untouched', () => {
    const fixture = fixtureFor('customer.updated');
    const steps = applyEdits(fixture, {
      override: ['customer:name=Jenny', 'customer_update:metadata.foo=baz'],
      add: ['customer:description=ignored', 'customer:email=jenny@example.com'],
      remove: ['customer_update:metadata.foo', 'customer:nothing.here'],
    });
    expect(steps[0]!.params).toEqual({ description: '(created by the service CLI)', name: 'Jenny', email: 'jenny@example.com' });
    expect(steps[1]!.params).toEqual({ metadata: {} });
    expect(fixture.steps[1]!.params).toEqual({ metadata: { foo: 'bar' } });
  });

  it('Given an edit naming no step of the fixture, a missing value or a prototype key, then it is a clear error', () => {
    const fixture = fixtureFor('customer.created');
    expect(() => applyEdits(fixture, { override: ['cus:name=x'] })).toThrow(
      "--override 'cus:name=x': 'customer.created' has no step 'cus' (its steps: customer).",
    );
    expect(() => applyEdits(fixture, { add: ['customer:name'] })).toThrow(/needs a value/);
    expect(() => applyEdits(fixture, { override: ['name=x'] })).toThrow(/must name a step and a param/);
    expect(() => applyEdits(fixture, { override: ['customer:__proto__.polluted=x'] })).toThrow(/bad param path/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('Given --forward-to without a scheme, then it is http, as the reference tool takes it; other schemes are refused', () => {
    expect(forwardUrl('localhost:3000/webhooks')).toBe('http://localhost:3000/webhooks');
    expect(forwardUrl('https://example.com/hook')).toBe('https://example.com/hook');
    expect(() => forwardUrl('ftp://example.com/hook')).toThrow(CliError);
  });
});

describe('cli target: which stack and key the commands use', () => {
  it('Given --api-key and --api-base, then they are used (a trailing slash dropped); else SERVICE_SECRET_KEY is the key', () => {
    expect(resolveTarget({ apiKey: 'sk_test_given', apiBase: 'http://127.0.0.1:5000/' })).toEqual({
      apiKey: 'sk_test_given',
      baseUrl: 'http://127.0.0.1:5000',
    });
    const pinned = process.env.SERVICE_SECRET_KEY;
    process.env.SERVICE_SECRET_KEY = 'sk_test_pinnedpinnedpinned';
    try {
      expect(resolveTarget({ apiBase: 'http://127.0.0.1:5000' }).apiKey).toBe('sk_test_pinnedpinnedpinned');
    } finally {
      if (pinned === undefined) delete process.env.SERVICE_SECRET_KEY;
      else process.env.SERVICE_SECRET_KEY = pinned;
    }
  });

  it('Given a publishable key or a base that is no http URL, then it is a clear error', () => {
    expect(() => resolveTarget({ apiKey: 'pk_test_abc', apiBase: 'http://127.0.0.1:5000' })).toThrow(
      '--api-key must be a secret key (sk_test_… or sk_live_…).',
    );
    expect(() => resolveTarget({ apiKey: 'sk_test_abc', apiBase: 'not a url' })).toThrow(/--api-base must be a URL/);
    expect(() => resolveTarget({ apiKey: 'sk_test_abc', apiBase: 'file:///etc/passwd' })).toThrow(/--api-base must be an http or https URL/);
  });
});
