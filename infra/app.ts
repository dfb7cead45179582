import { App } from 'aws-cdk-lib';
import { StatefulStack } from './stateful-stack.ts';
import { StatelessStack } from './stateless-stack.ts';

/**
 * Deploys `ServiceStateful` and `ServiceStateless`; `-c stage=dev` deploys a separate copy named
 * `ServiceStateful-dev` and `ServiceStateless-dev`. The stacks are environment-agnostic, so synth needs
 * neither credentials nor lookups; `cdk deploy` targets the account and region of the current profile.
 *
 * Optional context for event delivery, checked at synth and set on every function (infra/delivery-settings.ts);
 * left unset or empty, the variable is left out and `shared/config.ts` applies its default:
 * - `cloudtwoEventGridEndpoint` (an http(s) URL) → `CLOUDTWO_EVENT_GRID_ENDPOINT`
 * - `deliveryRetryScheduleTest`, `deliveryRetryScheduleLive` (seconds before each retry, such as
 *   `60,1800,7200`) → `DELIVERY_RETRY_SCHEDULE_TEST`, `DELIVERY_RETRY_SCHEDULE_LIVE`
 */
const app = new App();

const stage: unknown = app.node.tryGetContext('stage');
if (stage !== undefined && (typeof stage !== 'string' || !/^[a-z][a-z0-9-]{0,19}$/.test(stage))) {
  throw new Error(`Context stage must be lowercase letters, digits and hyphens, got ${JSON.stringify(stage)}`);
}
const suffix = stage ? `-${stage}` : '';
const tags = { service: 'service-api', ...(stage ? { stage } : {}) };

const stateful = new StatefulStack(app, `ServiceStateful${suffix}`, {
  description: 'Service API: table, queues and event bus (retained)',
  tags,
});

new StatelessStack(app, `ServiceStateless${suffix}`, {
  description: 'Service API: HTTP API, functions, queue workers and scheduled jobs',
  tags,
  resources: stateful,
});
