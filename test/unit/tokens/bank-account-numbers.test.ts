import { describe, expect, it } from 'vitest';
import { checkBankAccount, defaultCurrency, isAbaRoutingNumber, isIban } from '#shared/tokens/bank-account-numbers.ts';

describe('ABA routing numbers', () => {
  it('accepts 9 digits whose 3-7-1 weighted sum is a multiple of 10', () => {
    expect(isAbaRoutingNumber('110000000')).toBe(true);
    expect(isAbaRoutingNumber('021000021')).toBe(true);
    expect(isAbaRoutingNumber('011401533')).toBe(true);
    expect(isAbaRoutingNumber('122105155')).toBe(true);
  });

  it('refuses a wrong checksum, a wrong length and non-digits', () => {
    expect(isAbaRoutingNumber('110000001')).toBe(false);
    expect(isAbaRoutingNumber('021000012')).toBe(false);
    expect(isAbaRoutingNumber('11000000')).toBe(false);
    expect(isAbaRoutingNumber('1100000000')).toBe(false);
    expect(isAbaRoutingNumber('11000000a')).toBe(false);
  });
});

describe('IBANs', () => {
  it('accepts valid IBANs of the right length for their country', () => {
    expect(isIban('DE89370400440532013000')).toBe(true);
    expect(isIban('FR1420041010050500013M02606')).toBe(true);
    expect(isIban('GB82WEST12345698765432')).toBe(true);
  });

  it('refuses a wrong check, a wrong length and lower case', () => {
    expect(isIban('DE89370400440532013001')).toBe(false);
    expect(isIban('DE8937040044053201300')).toBe(false);
    expect(isIban('de89370400440532013000')).toBe(false);
  });
});

describe('bank account formats by country', () => {
  it('accepts a US test account with a valid routing number in test mode', () => {
    expect(checkBankAccount('US', '000123456789', '110000000', true)).toEqual({ accountNumber: '000123456789', routingNumber: '110000000' });
  });

  it('refuses a US routing number with a bad checksum, and a missing one', () => {
    expect(checkBankAccount('US', '000123456789', '110000001', true)).toMatchObject({ field: 'routing_number', code: 'routing_number_invalid' });
    expect(checkBankAccount('US', '000123456789', undefined, true)).toMatchObject({ field: 'routing_number' });
  });

  it('refuses a US account number that is not 4 to 17 digits, and a real-looking one in test mode', () => {
    expect(checkBankAccount('US', '12ab', '110000000', false)).toMatchObject({ field: 'account_number', code: 'account_number_invalid' });
    expect(checkBankAccount('US', '123456789012345678', '110000000', false)).toMatchObject({ field: 'account_number' });
    expect(checkBankAccount('US', '987654321', '110000000', true)).toMatchObject({ field: 'account_number', code: 'account_number_invalid' });
    expect(checkBankAccount('US', '987654321', '110000000', false)).toEqual({ accountNumber: '987654321', routingNumber: '110000000' });
  });

  it('takes IBANs for IBAN countries and refuses one of another country', () => {
    expect(checkBankAccount('DE', 'DE89 3704 0044 0532 0130 00', undefined, true)).toEqual({ accountNumber: 'DE89370400440532013000', routingNumber: null });
    expect(checkBankAccount('FR', 'DE89370400440532013000', undefined, true)).toMatchObject({ code: 'invalid_bank_account_iban' });
  });

  it('normalises Canadian and British routing numbers', () => {
    expect(checkBankAccount('CA', '000123456789', '11000000', true)).toEqual({ accountNumber: '000123456789', routingNumber: '11000-000' });
    expect(checkBankAccount('GB', '00012345', '10-88-00', true)).toEqual({ accountNumber: '00012345', routingNumber: '108800' });
  });

  it('knows the default currency of common countries', () => {
    expect(defaultCurrency('US')).toBe('usd');
    expect(defaultCurrency('DE')).toBe('eur');
    expect(defaultCurrency('GB')).toBe('gbp');
    expect(defaultCurrency('ZZ')).toBeUndefined();
  });
});
