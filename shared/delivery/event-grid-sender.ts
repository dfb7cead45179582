import { postAttempt, type DeliveryAttempt } from '#shared/delivery/attempt.ts';

/** A CloudEvents 1.0 event in structured JSON mode, as cloudtwo Event Grid partner topics take it. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  /** RFC 3339. */
  time: string;
  subject?: string;
  datacontenttype: 'application/json';
  data: unknown;
}

export interface EventGridSenderOptions {
  /** Base URL of the partner topics, without a trailing slash (config `CLOUDTWO_EVENT_GRID_ENDPOINT`). */
  endpoint: string;
  timeoutMs: number;
}

export interface EventGridRequest {
  /** The partner topic's name (`cloudtwo_partner_topic_name`). */
  topicName: string;
  event: CloudEvent;
}

export interface EventGridSender {
  /**
   * POSTs one event to the topic. A 2xx is delivered; a 404 is failed with `missingTarget` (the topic was
   * deleted or never activated); any other status, the timeout or a network failure is failed.
   */
  send(request: EventGridRequest): Promise<DeliveryAttempt>;
}

/** The outbound adapter for `cloudtwo_event_grid` event destinations. */
export function eventGridSender(options: EventGridSenderOptions): EventGridSender {
  const base = options.endpoint.replace(/\/+$/, '');
  return {
    send: async ({ topicName, event }) => {
      const attempt = await postAttempt({
        url: `${base}/partner-topics/${encodeURIComponent(topicName)}/events`,
        body: JSON.stringify(event),
        timeoutMs: options.timeoutMs,
        headers: { 'Content-Type': 'application/cloudevents+json; charset=utf-8' },
      });
      return attempt.status === 404 ? { ...attempt, missingTarget: true } : attempt;
    },
  };
}
