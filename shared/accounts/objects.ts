import * as z from 'zod';
import { deletedObject, isoTime, metadataObject, openObject } from '#shared/wire/objects.ts';
import { configurationNames } from './capabilities.ts';

const deadlineStatus = z.enum(['currently_due', 'eventually_due', 'past_due']);

const requirementsObject = z
  .object({
    entries: z
      .array(
        z.object({
          awaiting_action_from: z
            .literal('user')
            .describe('Indicates whether the user or the service is currently responsible for taking action on the requirement.'),
          description: z.string().describe('Machine-readable string describing the requirement.'),
          errors: z
            .array(
              z.object({
                code: z.string().describe('Machine-readable code describing the error.'),
                description: z.string().describe('Machine-readable string describing the requirement.'),
              }),
            )
            .describe("Descriptions of why the requirement must be collected, or why the collected information isn't satisfactory to the service."),
          impact: z
            .object({
              restricts_capabilities: z
                .array(
                  z.object({
                    capability: z.string().describe('The name of the Capability which will be restricted.'),
                    configuration: z.enum(configurationNames).describe('The configuration the capability belongs to.'),
                    deadline: z
                      .object({ status: deadlineStatus.describe("The current status of the requirement's impact.") })
                      .describe('Details about when in the account lifecycle the requirement must be collected by the avoid the Capability restriction.'),
                  }),
                )
                .describe('The Capabilities that will be restricted if the requirement is not collected and satisfactory to the service.'),
            })
            .describe('A hash describing the impact of not collecting the requirement, or the service not being able to verify the collected information.'),
          minimum_deadline: z
            .object({ status: deadlineStatus.describe("The current status of the requirement's impact.") })
            .describe('The soonest point when the account will be impacted by not providing the requirement.'),
          requested_reasons: z
            .array(z.object({ code: z.literal('routine_onboarding').describe('Machine-readable code describing the error.') }))
            .describe('A list of reasons why the service is collecting the requirement.'),
        }),
      )
      .describe('A list of requirements for the Account.'),
    summary: z
      .object({
        minimum_deadline: z
          .object({
            status: deadlineStatus.describe("The current status of the requirement's impact."),
            time: z.string().optional().describe('The soonest RFC3339 date & time UTC value a requirement can impact the Account.'),
          })
          .describe('The soonest date and time a requirement on the Account will become `past due`.'),
      })
      .optional()
      .describe('An object containing an overview of requirements for the Account.'),
    /** `future_requirements` only. */
    minimum_transition_date: z.string().optional().describe('The time at which the future requirements become effective. `future_requirements` only.'),
  })
  .meta({ id: 'V2CoreAccountRequirements' });

const configurationObject = z.looseObject({
  applied: z.boolean().describe('Indicates whether the customer configuration is active.'),
  capabilities: openObject.describe('Capabilities that have been requested on the Customer Configuration.'),
});

export const accountObject = z
  .object({
    id: z.string().describe('Unique identifier for the Account.'),
    object: z.literal('v2.core.account').describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    applied_configurations: z.array(z.enum(configurationNames)).describe('The configurations that have been applied to this account.'),
    closed: z.boolean().describe('Indicates whether the account has been closed.'),
    /** Null unless a `configuration.*` section is named in `include`; then each included configuration, null when not set up. */
    configuration: z
      .partialRecord(z.enum(configurationNames), configurationObject.nullable())
      .nullable()
      .describe(
        'The configurations the account has. Null unless a `configuration.*` section is named in `include`; then each included configuration, null when not set up.',
      ),
    contact_email: z.string().nullable().describe('The primary contact email address for the Account.'),
    contact_phone: z.string().nullable().describe('The default contact phone for the Account.'),
    created: isoTime.describe(
      'Time at which the object was created. Represented as a RFC 3339 date & time UTC value in millisecond precision, for example: 2022-09-18T13:22:18.123Z.',
    ),
    dashboard: z.enum(['express', 'full', 'none']).nullable().describe('A value indicating the dashboard this Account has access to.'),
    /** Null unless `defaults` is included. */
    defaults: openObject.nullable().describe('Default values for settings shared across Account configurations. Null unless `defaults` is included.'),
    display_name: z
      .string()
      .nullable()
      .describe('A descriptive name for the Account. This name will be surfaced in the Dashboard and on any invoices sent to the Account.'),
    future_requirements: requirementsObject
      .nullable()
      .describe(
        'Information about the future requirements for the Account that will eventually come into effect, including what information needs to be collected, and by when.',
      ),
    /** Null unless `identity` is included. */
    identity: openObject
      .nullable()
      .describe('Information about the company, individual, and business represented by the Account. Null unless `identity` is included.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    requirements: requirementsObject
      .nullable()
      .describe('Information about the active requirements for the Account, including what information needs to be collected, and by when.'),
  })
  .meta({ id: 'V2CoreAccount' });

/** The person's own fields are the ones it was given (names, address, relationship, …) beside these. */
export const personObject = z
  .looseObject({
    id: z.string().describe('Unique identifier for the Person.'),
    object: z
      .literal('v2.core.account_person')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    account: z.string().describe('The account ID which the individual belongs to.'),
    created: isoTime.describe(
      'Time at which the object was created. Represented as a RFC 3339 date & time UTC value in millisecond precision, for example: 2022-09-18T13:22:18.123Z.',
    ),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    updated: isoTime.describe(
      'Time at which the object was last updated. Represented as a RFC 3339 date & time UTC value in millisecond precision, for example: 2022-09-18T13:22:18.123Z.',
    ),
  })
  .meta({ id: 'V2CoreAccountPerson' });

export const deletedPersonObject = deletedObject('v2.core.account_person').meta({ id: 'V2CoreDeletedAccountPerson' });

const v2TokenObject = <O extends string>(object: O) =>
  z.object({
    id: z.string().describe('Unique identifier for the token.'),
    object: z.literal(object).describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    created: isoTime.describe(
      'Time at which the token was created. Represented as a RFC 3339 date & time UTC value in millisecond precision, for example: 2022-09-18T13:22:18.123Z.',
    ),
    expires_at: isoTime.describe('Time at which the token will expire.'),
    livemode: z.boolean().describe('Has the value `true` if the token exists in live mode or the value `false` if the object exists in test mode.'),
    used: z.boolean().describe('Determines if the token has already been used (tokens can only be used once).'),
  });

export const accountTokenObject = v2TokenObject('v2.core.account_token').meta({ id: 'V2CoreAccountToken' });

export const personTokenObject = v2TokenObject('v2.core.account_person_token').meta({ id: 'V2CoreAccountPersonToken' });
