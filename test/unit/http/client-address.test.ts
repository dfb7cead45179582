import { describe, expect, it } from 'vitest';
import { clientAddress } from '#shared/http/client-address.ts';

describe("the client's address", () => {
  it("is API Gateway's source address when no proxy header is configured, whatever the request claims", () => {
    // Given a request that names an address of its own choosing, and no configured header
    const headers = { 'cloudfront-viewer-address': '198.51.100.9:443', 'x-forwarded-for': '198.51.100.10' };

    // Then the connection's address counts
    expect(clientAddress(headers, '203.0.113.7', null)).toBe('203.0.113.7');
    expect(clientAddress({}, undefined, null)).toBeNull();
  });

  it("is CloudFront's viewer address behind CloudFront, without its port, for IPv4 and IPv6", () => {
    // Given the header CloudFront writes, configured by the stack
    const header = 'cloudfront-viewer-address';

    // Then the viewer's address counts, not the CloudFront server's
    expect(clientAddress({ [header]: '198.51.100.9:51234' }, '130.176.1.1', header)).toBe('198.51.100.9');
    expect(clientAddress({ [header]: '2001:db8:85a3::8a2e:370:7334:46532' }, '130.176.1.1', header)).toBe('2001:db8:85a3::8a2e:370:7334');
  });

  it('falls back to the source address when the header is missing or malformed', () => {
    const header = 'cloudfront-viewer-address';
    for (const value of [undefined, '', 'not-an-address:80', '198.51.100.9', '<script>:1']) {
      expect(clientAddress({ [header]: value }, '130.176.1.1', header), String(value)).toBe('130.176.1.1');
    }
  });
});
