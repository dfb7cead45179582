import { InvalidRequestError } from '#shared/core/errors.ts';
import { privateTargetReason, refusesPrivateTargets, type EgressPolicy } from './egress-policy.ts';

/** A webhook target: an absolute http(s) URL; http is fine in test mode (local receivers), live mode needs https. */
function checkWebhookUrl(url: string, livemode: boolean, param: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidRequestError(`Invalid URL: ${url}. It must be an absolute http or https URL.`, 'url_invalid', param);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new InvalidRequestError(`Invalid URL: ${url}. It must use http or https.`, 'url_invalid', param);
  }
  if (livemode && parsed.protocol !== 'https:') {
    throw new InvalidRequestError(`Invalid URL: ${url}. Live-mode webhooks must use https.`, 'url_invalid', param);
  }
}

/**
 * A webhook target as it is registered: an absolute http(s) URL (https in live mode) that, where the egress
 * policy says so (always in live mode), is not and does not resolve to a private, loopback or link-local
 * address. Delivery checks the address again when it connects.
 */
export async function checkWebhookTarget(url: string, livemode: boolean, param: string, egress: EgressPolicy): Promise<void> {
  checkWebhookUrl(url, livemode, param);
  if (!refusesPrivateTargets(egress, livemode)) return;
  const reason = await privateTargetReason(new URL(url));
  if (reason) {
    throw new InvalidRequestError(
      `Invalid URL: ${url}. ${livemode ? 'Live-mode webhooks' : 'Webhooks'} must go to a public address (${reason}).`,
      'url_invalid',
      param,
    );
  }
}
