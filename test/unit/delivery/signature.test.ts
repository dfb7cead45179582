import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeader } from '#shared/delivery/signature.ts';

const sdk = new Stripe('sk_test_x');
const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ';
const nowSeconds = () => Math.floor(Date.now() / 1000);

const snapshotBody = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  api_version: null,
  created: 1_795_000_000,
  data: { object: { id: 'we_1', object: 'webhook_endpoint' } },
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type: 'webhook_endpoint.created',
});

const thinBody =
  '{"id":"evt_1","object":"v2.core.event","type":"v2.core.event_destination.ping","created":"2026-11-22T10:00:00.000Z",' +
  '"livemode":false,"context":null,"related_object":{"id":"ed_1","type":"v2.core.event_destination","url":"/v2/core/event_destinations/ed_1"}}';

describe('webhook signatures', () => {
  it('are accepted by the official SDK for a v1 snapshot event', () => {
    // Given a snapshot event signed now
    const header = signatureHeader(snapshotBody, secret, nowSeconds());

    // When the SDK verifies it
    const event = sdk.webhooks.constructEvent(snapshotBody, header, secret);

    // Then it yields the event
    expect(event).toMatchObject({ id: 'evt_1', object: 'event', type: 'webhook_endpoint.created' });
  });

  it('are accepted by the official SDK for a thin event notification', () => {
    // Given a thin ping notification signed now
    const header = signatureHeader(thinBody, secret, nowSeconds());

    // When the SDK parses it as a notification
    const notification = sdk.parseEventNotification(thinBody, header, secret);

    // Then it yields the notification with its related object
    expect(notification).toMatchObject({ id: 'evt_1', type: 'v2.core.event_destination.ping', related_object: { id: 'ed_1' } });
  });

  it("have the SDK test helper's exact layout: t=<seconds>,v1=<64 lowercase hex>", () => {
    // Given a fixed timestamp
    const timestamp = 1_795_000_000;

    // When the same body is signed by us and by the SDK's helper
    const ours = signatureHeader(thinBody, secret, timestamp);
    const theirs = sdk.webhooks.generateTestHeaderString({ payload: thinBody, secret, timestamp });

    // Then the headers are identical
    expect(ours).toMatch(/^t=1795000000,v1=[0-9a-f]{64}$/);
    expect(ours).toBe(theirs);
  });

  it('are refused by the SDK when made with another secret', () => {
    // Given a body signed with a different secret
    const header = signatureHeader(snapshotBody, 'whsec_other', nowSeconds());

    // When / Then both SDK entry points refuse it
    expect(() => sdk.webhooks.constructEvent(snapshotBody, header, secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => sdk.parseEventNotification(thinBody, signatureHeader(thinBody, 'whsec_other', nowSeconds()), secret)).toThrow(/No signatures found matching/);
  });

  it('are refused by the SDK once older than its 300 second tolerance', () => {
    // Given a body signed six minutes ago
    const header = signatureHeader(snapshotBody, secret, nowSeconds() - 360);

    // When / Then the SDK refuses it as stale, although the signature matches
    expect(() => sdk.webhooks.constructEvent(snapshotBody, header, secret)).toThrow(/Timestamp outside the tolerance zone/);
  });

  it('do not cover a body changed after signing', () => {
    // Given a signature for one body
    const header = signatureHeader(snapshotBody, secret, nowSeconds());

    // When a different body is presented with it
    const tampered = snapshotBody.replace('we_1', 'we_2');

    // Then the SDK refuses it
    expect(() => sdk.webhooks.constructEvent(tampered, header, secret)).toThrow(/No signatures found matching/);
  });

  it('refuse a timestamp that is not whole seconds', () => {
    // When a millisecond clock value with a fraction is passed by mistake
    // Then signing fails loudly instead of producing a header the SDK would misread
    expect(() => signatureHeader(snapshotBody, secret, Date.now() / 1000)).toThrow(RangeError);
  });
});

describe('signing secrets', () => {
  it('are whsec_ followed by 32 base62 characters, different every time', () => {
    // When two secrets are made
    const first = newSigningSecret();
    const second = newSigningSecret();

    // Then both have the layout, and they differ
    expect(first).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(second).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(first).not.toBe(second);
  });
});
