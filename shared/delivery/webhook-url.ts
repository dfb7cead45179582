import { InvalidRequestError } from '#shared/errors.ts';

/** A webhook target: an absolute http(s) URL; http is fine in test mode (local receivers), live mode needs https. */
export function checkWebhookUrl(url: string, livemode: boolean, param: string): void {
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
