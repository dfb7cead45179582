import { describe, expect, it } from 'vitest';
import { snapshotEventTypes, thinEventTypes, thinMirrorOf, unmirroredSnapshotTypes } from '#shared/events/catalogue.ts';
import { referenceThinEventTypes } from '#shared/events/reference-event-types.ts';
import { isSnapshotEventType, isThinEventType } from '#shared/events/subscribable.ts';

describe('event catalogue: the types emitted, offline', () => {
  it('Given every snapshot type emitted, then it has a thin mirror exactly when the reference defines `v1.<type>`', () => {
    const reference = new Set<string>(referenceThinEventTypes);
    for (const type of snapshotEventTypes) {
      expect(thinMirrorOf(type), type).toBe(reference.has(`v1.${type}`) ? `v1.${type}` : undefined);
    }
    expect([...unmirroredSnapshotTypes].filter((type) => !(snapshotEventTypes as readonly string[]).includes(type))).toEqual([]);
  });

  it('Given every type emitted, then an endpoint or destination may enable it', () => {
    for (const type of snapshotEventTypes) expect(isSnapshotEventType(type), type).toBe(true);
    for (const type of thinEventTypes) expect(isThinEventType(type), type).toBe(true);
    expect(isSnapshotEventType('payment_intent.succeeded')).toBe(true);
    expect(isSnapshotEventType('no.such.type')).toBe(false);
  });
});
