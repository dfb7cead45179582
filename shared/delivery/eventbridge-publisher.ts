import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { networkFailure, type DeliveryAttempt } from '#shared/delivery/attempt.ts';

export interface EventBridgePublisherOptions {
  /** Its retries (`maxAttempts`) and timeouts (`requestHandler`) apply to every put. */
  client: EventBridgeClient;
  /** The partner event bus (name or ARN) of the `cloudone_eventbridge` destination. */
  busName: string;
}

export interface EventBridgeEntry {
  source: string;
  detailType: string;
  /** JSON text of an object; EventBridge refuses anything else as `MalformedDetail`. */
  detail: string;
  resources?: string[];
}

export interface EventBridgePublisher {
  /**
   * Puts one entry on the bus. Accepted is delivered with status 200. A failed entry or a failed call is
   * failed with status null; `missingTarget` when the bus or partner event source does not exist
   * (`ResourceNotFoundException`). Never rejects: every error of the call becomes a failed attempt.
   */
  put(entry: EventBridgeEntry): Promise<DeliveryAttempt>;
}

const missingResource = 'ResourceNotFoundException';

/** The outbound adapter for `cloudone_eventbridge` event destinations. */
export function eventBridgePublisher(options: EventBridgePublisherOptions): EventBridgePublisher {
  return {
    put: async (entry) => {
      const started = performance.now();
      const failed = (error: string, missingTarget: boolean): DeliveryAttempt => ({
        outcome: 'failed',
        status: null,
        durationMs: Math.round(performance.now() - started),
        error,
        missingTarget,
      });
      try {
        const output = await options.client.send(
          new PutEventsCommand({
            Entries: [{ EventBusName: options.busName, Source: entry.source, DetailType: entry.detailType, Detail: entry.detail, Resources: entry.resources }],
          }),
        );
        // The call succeeds while entries fail: the verdict is per entry.
        const result = output.Entries?.[0];
        if ((output.FailedEntryCount ?? 0) > 0 || result?.ErrorCode || !result?.EventId) {
          const code = result?.ErrorCode ?? 'UnknownError';
          return failed(`${code}: ${result?.ErrorMessage ?? 'the entry was not accepted'}`, code === missingResource);
        }
        return { outcome: 'delivered', status: 200, durationMs: Math.round(performance.now() - started), error: null, missingTarget: false };
      } catch (error) {
        return failed(callFailure(error), error instanceof Error && error.name === missingResource);
      }
    },
  };
}

/** A service error as `<name>: <message>`; a socket error in words; the SDK's own timeout text as it is. */
function callFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return error.message;
  return networkFailure(error) ?? `${error.name}: ${error.message}`;
}
