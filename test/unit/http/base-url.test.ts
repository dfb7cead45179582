import { describe, expect, it } from 'vitest';
import { publicBaseUrl } from '#shared/http/base-url.ts';

describe('the public base URL of links to this service', () => {
  it('follows the scheme and host the request came in on', () => {
    expect(publicBaseUrl({ 'x-forwarded-proto': 'http', host: '127.0.0.1:4242' }, '127.0.0.1:4242', null)).toBe('http://127.0.0.1:4242');
    expect(
      publicBaseUrl({ 'x-forwarded-proto': 'https', host: 'abc123.execute-api.eu-west-1.amazonaws.com' }, 'abc123.execute-api.eu-west-1.amazonaws.com', null),
    ).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com');
    expect(publicBaseUrl({ 'x-forwarded-proto': 'https,http', host: '[::1]:8080' }, undefined, null)).toBe('https://[::1]:8080');
  });

  it('prefers PUBLIC_BASE_URL when it is set', () => {
    expect(publicBaseUrl({ 'x-forwarded-proto': 'http', host: '127.0.0.1:4242' }, undefined, 'https://pay.example.com/')).toBe('https://pay.example.com');
  });

  it('never builds a URL from a malformed host or scheme', () => {
    expect(publicBaseUrl({ 'x-forwarded-proto': 'javascript', host: 'evil.example/<x>' }, 'api.example.com', null)).toBe('https://api.example.com');
    expect(publicBaseUrl({}, undefined, null)).toBe('https://localhost');
  });
});
