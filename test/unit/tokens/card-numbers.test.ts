import { describe, expect, it } from 'vitest';
import { cardBrand, cvcLength, passesLuhn, testCards } from '#shared/tokens/card-numbers.ts';

describe('the Luhn check', () => {
  it('accepts numbers whose check digit matches', () => {
    expect(passesLuhn('4242424242424242')).toBe(true);
    expect(passesLuhn('378282246310005')).toBe(true);
    expect(passesLuhn('79927398713')).toBe(true);
    expect(passesLuhn('0')).toBe(true);
  });

  it('refuses a wrong check digit, a transposition and anything that is not digits', () => {
    expect(passesLuhn('4242424242424241')).toBe(false);
    expect(passesLuhn('79927398710')).toBe(false);
    expect(passesLuhn('4242424242424224')).toBe(false);
    expect(passesLuhn('4242 4242 4242 4242')).toBe(false);
    expect(passesLuhn('')).toBe(false);
  });

  it('holds for every published test card', () => {
    for (const number of testCards.keys()) expect(passesLuhn(number), number).toBe(true);
  });
});

describe('card brands from IIN ranges', () => {
  it.each([
    ['4242424242424242', 'Visa'],
    ['4000056655665556', 'Visa'],
    ['5555555555554444', 'MasterCard'],
    ['2223003122003222', 'MasterCard'],
    ['2720990000000000', 'MasterCard'],
    ['5105105105105100', 'MasterCard'],
    ['378282246310005', 'American Express'],
    ['341111111111111', 'American Express'],
    ['6011111111111117', 'Discover'],
    ['6445644564456445', 'Discover'],
    ['6555900000604105', 'Discover'],
    ['3056930009020004', 'Diners Club'],
    ['36227206271667', 'Diners Club'],
    ['3566002020360505', 'JCB'],
    ['3530111333300000', 'JCB'],
    ['6200000000000005', 'UnionPay'],
    ['8171999927660000', 'UnionPay'],
    ['1234567812345678', 'Unknown'],
    ['2220990000000000', 'Unknown'],
    ['2721000000000000', 'Unknown'],
  ])('%s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it('asks 4 CVC digits of American Express and 3 of the others', () => {
    expect(cvcLength('American Express')).toBe(4);
    expect(cvcLength('Visa')).toBe(3);
    expect(cvcLength('Unknown')).toBe(3);
  });
});
