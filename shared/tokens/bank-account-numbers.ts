/** Bank account rules: ABA routing checksums, IBANs, the number formats of each country, default currencies. */

/** A US ABA routing number: 9 digits whose weighted sum (3, 7, 1 repeating) is a multiple of 10. */
export function isAbaRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = weights.reduce((total, weight, index) => total + weight * (value.charCodeAt(index) - 48), 0);
  return sum % 10 === 0;
}

/** IBAN length per country (ISO 13616 registry) for the countries whose accounts are given as an IBAN. */
export const ibanLengths: ReadonlyMap<string, number> = new Map([
  ['AD', 24],
  ['AT', 20],
  ['GB', 22],
  ['BE', 16],
  ['BG', 22],
  ['CH', 21],
  ['CY', 28],
  ['CZ', 24],
  ['DE', 22],
  ['DK', 18],
  ['EE', 20],
  ['ES', 24],
  ['FI', 18],
  ['FR', 27],
  ['GI', 23],
  ['GR', 27],
  ['HR', 21],
  ['HU', 28],
  ['IE', 22],
  ['IS', 26],
  ['IT', 27],
  ['LI', 21],
  ['LT', 20],
  ['LU', 20],
  ['LV', 21],
  ['MC', 27],
  ['MT', 31],
  ['NL', 18],
  ['NO', 15],
  ['PL', 28],
  ['PT', 25],
  ['RO', 24],
  ['SE', 24],
  ['SI', 19],
  ['SK', 24],
  ['SM', 27],
]);

/** An IBAN without spaces, upper case: country, check digits, then the national number; mod 97 = 1. */
export function isIban(value: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(value)) return false;
  const expected = ibanLengths.get(value.slice(0, 2));
  if (expected !== undefined && value.length !== expected) return false;
  const rearranged = value.slice(4) + value.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** Currency of a country's bank accounts when the request names none. */
const currencies: Record<string, string> = {
  US: 'usd',
  CA: 'cad',
  GB: 'gbp',
  AU: 'aud',
  NZ: 'nzd',
  JP: 'jpy',
  CH: 'chf',
  LI: 'chf',
  NO: 'nok',
  SE: 'sek',
  DK: 'dkk',
  PL: 'pln',
  CZ: 'czk',
  HU: 'huf',
  RO: 'ron',
  BG: 'bgn',
  IS: 'isk',
  GI: 'gbp',
  HK: 'hkd',
  SG: 'sgd',
  MX: 'mxn',
  BR: 'brl',
  IN: 'inr',
  MY: 'myr',
  TH: 'thb',
  AE: 'aed',
  AD: 'eur',
  AT: 'eur',
  BE: 'eur',
  CY: 'eur',
  DE: 'eur',
  EE: 'eur',
  ES: 'eur',
  FI: 'eur',
  FR: 'eur',
  GR: 'eur',
  HR: 'eur',
  IE: 'eur',
  IT: 'eur',
  LT: 'eur',
  LU: 'eur',
  LV: 'eur',
  MC: 'eur',
  MT: 'eur',
  NL: 'eur',
  PT: 'eur',
  SI: 'eur',
  SK: 'eur',
  SM: 'eur',
};

export const defaultCurrency = (country: string): string | undefined => currencies[country];

/**
 * The reference's US test account numbers (test mode takes only these, so that no real account number
 * is ever sent to a test integration): success, then the payout failures they simulate.
 */
export const testUsAccountNumbers: ReadonlySet<string> = new Set([
  '000123456789',
  '000111111116',
  '000111111113',
  '000222222227',
  '000333333335',
  '000444444440',
]);

export type BankAccountProblem = { field: 'account_number' | 'routing_number'; code: string; message: string };

interface NationalFormat {
  account: RegExp;
  accountText: string;
  /** null: the country's account numbers include the bank and branch, there is no routing number. */
  routing: { pattern: RegExp; text: string; canonical: (routing: string) => string } | null;
}

const digitsOnly = (routing: string) => routing.replace(/-/g, '');

/** Domestic (non-IBAN) formats of the countries the reference documents test numbers for. */
const nationalFormats: Record<string, NationalFormat> = {
  US: { account: /^\d{4,17}$/, accountText: '4 to 17 digits', routing: { pattern: /^\d{9}$/, text: '9 digits', canonical: (routing) => routing } },
  CA: {
    account: /^\d{7,12}$/,
    accountText: '7 to 12 digits',
    routing: {
      pattern: /^\d{5}-?\d{3}$/,
      text: 'a 5-digit transit number and a 3-digit institution number (11000-000)',
      canonical: (routing) => `${digitsOnly(routing).slice(0, 5)}-${digitsOnly(routing).slice(5)}`,
    },
  },
  GB: { account: /^\d{8}$/, accountText: '8 digits', routing: { pattern: /^\d{2}-?\d{2}-?\d{2}$/, text: 'a 6-digit sort code', canonical: digitsOnly } },
  AU: { account: /^\d{5,9}$/, accountText: '5 to 9 digits', routing: { pattern: /^\d{3}-?\d{3}$/, text: 'a 6-digit BSB', canonical: digitsOnly } },
  NZ: { account: /^\d{15,16}$/, accountText: '15 or 16 digits', routing: null },
};

export interface CheckedBankAccount {
  accountNumber: string;
  routingNumber: string | null;
}

/**
 * Checks an account number (and routing number) against the country's format. Returns the canonical
 * numbers, or the first problem found. `testmode` admits only the published test numbers where the
 * reference has them (US).
 */
export function checkBankAccount(
  country: string,
  accountNumber: string,
  routingNumber: string | undefined,
  testmode: boolean,
): CheckedBankAccount | BankAccountProblem {
  const account = accountNumber.replace(/\s+/g, '').toUpperCase();
  const routing = routingNumber?.trim() || undefined;
  const format = nationalFormats[country];
  if (ibanLengths.has(country) && (!format || /^[A-Z]{2}/.test(account))) {
    if (!isIban(account) || !account.startsWith(country)) {
      return { field: 'account_number', code: 'invalid_bank_account_iban', message: `The account number must be a valid ${country} IBAN.` };
    }
    return { accountNumber: account, routingNumber: null };
  }
  if (!format) {
    if (!/^[A-Z0-9]{4,34}$/.test(account)) {
      return { field: 'account_number', code: 'account_number_invalid', message: 'The account number must be 4 to 34 letters or digits.' };
    }
    if (routing !== undefined && !/^[A-Za-z0-9-]{1,20}$/.test(routing)) {
      return { field: 'routing_number', code: 'routing_number_invalid', message: 'The routing number must be up to 20 letters, digits or dashes.' };
    }
    return { accountNumber: account, routingNumber: routing ?? null };
  }
  if (!format.account.test(account)) {
    return { field: 'account_number', code: 'account_number_invalid', message: `A ${country} account number must be ${format.accountText}.` };
  }
  const rule = format.routing;
  if (rule && routing === undefined) {
    return { field: 'routing_number', code: 'routing_number_invalid', message: `A ${country} bank account needs a routing number (${rule.text}).` };
  }
  if (rule && !rule.pattern.test(routing!)) {
    return { field: 'routing_number', code: 'routing_number_invalid', message: `A ${country} routing number must be ${rule.text}.` };
  }
  if (!rule && routing !== undefined) {
    return {
      field: 'routing_number',
      code: 'routing_number_invalid',
      message: `A ${country} bank account takes no routing number: the account number includes the bank and branch.`,
    };
  }
  if (country === 'US' && !isAbaRoutingNumber(routing!)) {
    return {
      field: 'routing_number',
      code: 'routing_number_invalid',
      message: 'The routing number is not a valid ABA routing number (its checksum does not match).',
    };
  }
  if (testmode && country === 'US' && !testUsAccountNumbers.has(account)) {
    return {
      field: 'account_number',
      code: 'account_number_invalid',
      message: 'You must use a test bank account number in test mode. Try 000123456789, or another of the documented test account numbers.',
    };
  }
  return { accountNumber: account, routingNumber: rule ? rule.canonical(routing!) : null };
}
