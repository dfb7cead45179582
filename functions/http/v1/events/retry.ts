import { retryEventParams } from '#shared/delivery/schemas.ts';
import { wireDeliveryAttemptsService } from '#shared/delivery/wiring.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { SnapshotEvent } from '#shared/events/event.ts';
import { serializeSnapshotEvent } from '#shared/events/serializers.ts';
import type { snapshotEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireDeliveryAttemptsService();

/**
 * POST /v1/events/{id}/retry, as the reference's command-line tool calls it (`stripe events resend evt_…
 * --webhook-endpoint we_…`): the event sent again to that endpoint, now; answers the event.
 */
export const handler = httpHandler(
  {
    summary: 'Resend an event to a webhook endpoint',
    description:
      "As the reference's command-line tool calls it (`events resend evt_… --webhook-endpoint we_…`): the event is sent again to that endpoint now; answers the event.",
    params: retryEventParams,
    response: responds<typeof snapshotEventObject>(),
  },
  async ({ caller, params, pathParameters, explicitServiceVersion }) => {
    if (params.webhook_endpoint === undefined) {
      throw new InvalidRequestError(
        'Name the webhook_endpoint to send the event to: this service has no command-line listener to replay events to.',
        'parameter_missing',
        'webhook_endpoint',
      );
    }
    const { event } = await service.resend(caller, pathParameters.id!, { kind: 'webhook_endpoint', id: params.webhook_endpoint });
    return {
      body: serializeSnapshotEvent(
        { ...(event as SnapshotEvent), pendingWebhooks: (event as SnapshotEvent).pendingWebhooks + 1 },
        explicitServiceVersion ?? undefined,
      ),
    };
  },
);
