import { createHmac } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A fingerprint: HMAC-SHA256 of the value under the account's secret key, shown as 16 base62 characters
 * (like the reference's). Never a plain hash: card and account numbers are few enough to enumerate.
 * `kind` keeps a card and a bank account with the same digits apart.
 */
export function fingerprint(key: Buffer, kind: 'card' | 'bank_account', value: string): string {
  const digest = createHmac('sha256', key).update(`${kind}\u0000${value}`).digest();
  let number = BigInt(`0x${digest.subarray(0, 12).toString('hex')}`);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out += alphabet[Number(number % 62n)];
    number /= 62n;
  }
  return out;
}
