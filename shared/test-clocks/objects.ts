import * as z from 'zod';
import { deletedObject, unixTime } from '#shared/wire/objects.ts';

export const testClockObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('test_helpers.test_clock').describe("String representing the object's type. Objects of the same type share the same value."),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    deletes_after: unixTime.describe('Time at which this clock is scheduled to auto delete.'),
    frozen_time: unixTime.describe('Time at which all objects belonging to this clock are frozen.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    name: z.string().nullable().describe('The custom name supplied at creation.'),
    status: z.enum(['advancing', 'internal_failure', 'ready']).describe('The status of the Test Clock.'),
    status_details: z
      .object({
        advancing: z
          .object({ target_frozen_time: unixTime.describe('The `frozen_time` that the Test Clock is advancing towards.') })
          .optional()
          .describe('Present while the clock advances.'),
      })
      .describe("Details of the clock's status."),
  })
  .meta({ id: 'TestHelpersTestClock' });

export const deletedTestClockObject = deletedObject('test_helpers.test_clock').meta({ id: 'DeletedTestHelpersTestClock' });
