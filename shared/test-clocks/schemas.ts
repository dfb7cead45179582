import * as z from 'zod';
import { expandParam, idParam, unixTimeParam, v1ListParams } from '#shared/wire/params.ts';

const expand = () => expandParam().optional().describe('Specifies which fields in the response should be expanded.');

export const createTestClockParams = z.strictObject({
  frozen_time: unixTimeParam().describe('The initial frozen time for this test clock.'),
  name: z.string().max(300).optional().describe('The name for this test clock.'),
  customer: idParam().optional().describe('An existing customer to attach to the test clock (one without a test clock or subscriptions).'),
  expand: expand(),
});

export const advanceTestClockParams = z.strictObject({
  frozen_time: unixTimeParam().describe(
    "The time to advance the test clock. Must be after the test clock's current frozen time. Cannot be more than two intervals in the future from the shortest subscription in this test clock. If there are no subscriptions in this test clock, it cannot be more than two years in the future.",
  ),
  expand: expand(),
});

export const testClockParams = z.strictObject({ expand: expand() });

export const deleteTestClockParams = z.strictObject({});

export const listTestClocksParams = z.strictObject({ ...v1ListParams });

export type CreateTestClockParams = z.output<typeof createTestClockParams>;
