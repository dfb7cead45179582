/** Card number rules: the Luhn check, the brand from the number's IIN range, and the published test cards. */

export type CardBrand = 'Visa' | 'MasterCard' | 'American Express' | 'Discover' | 'Diners Club' | 'JCB' | 'UnionPay' | 'Unknown';

export type CardFunding = 'credit' | 'debit' | 'prepaid' | 'unknown';

/** The Luhn (mod 10) checksum of a string of digits. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const inRange = (digits: string, length: number, low: number, high: number): boolean => {
  const prefix = Number(digits.slice(0, length));
  return digits.length >= length && prefix >= low && prefix <= high;
};

/**
 * The brand of a card number from its IIN (first digits). Ranges as the networks publish them; the 62
 * range goes to UnionPay (also where Discover accepts co-branded cards), which is how the reference's
 * UnionPay test card 6200000000000005 is shown.
 */
export function cardBrand(digits: string): CardBrand {
  if (digits.startsWith('4')) return 'Visa';
  if (inRange(digits, 2, 51, 55) || inRange(digits, 4, 2221, 2720)) return 'MasterCard';
  if (digits.startsWith('34') || digits.startsWith('37')) return 'American Express';
  if (digits.startsWith('6011') || inRange(digits, 3, 644, 649) || digits.startsWith('65')) return 'Discover';
  if (digits.startsWith('62') || digits.startsWith('81')) return 'UnionPay';
  if (inRange(digits, 4, 3528, 3589)) return 'JCB';
  if (inRange(digits, 3, 300, 305) || digits.startsWith('3095') || digits.startsWith('36') || digits.startsWith('38') || digits.startsWith('39')) {
    return 'Diners Club';
  }
  return 'Unknown';
}

/** A CVC has 4 digits on American Express cards and 3 on every other brand. */
export const cvcLength = (brand: CardBrand): number => (brand === 'American Express' ? 4 : 3);

export interface TestCard {
  funding: CardFunding;
  country: string;
}

const credit = (country: string): TestCard => ({ funding: 'credit', country });
const debit = (country: string): TestCard => ({ funding: 'debit', country });

/**
 * The reference's published test card numbers, with the funding and country it shows for them. In test
 * mode only these are accepted; in live mode they are refused. Declining and fraud-rule cards tokenize
 * like any other; what they do when attached or charged is their `CardOutcome` (`testCardOutcome`).
 */
export const testCards: ReadonlyMap<string, TestCard> = new Map([
  // By brand
  ['4242424242424242', credit('US')],
  ['4000056655665556', debit('US')],
  ['5555555555554444', credit('US')],
  ['2223003122003222', credit('US')],
  ['5200828282828210', debit('US')],
  ['5105105105105100', { funding: 'prepaid', country: 'US' }],
  ['378282246310005', credit('US')],
  ['371449635398431', credit('US')],
  ['6011111111111117', credit('US')],
  ['6011000990139424', credit('US')],
  ['6011981111111113', debit('US')],
  ['3056930009020004', credit('US')],
  ['36227206271667', credit('US')],
  ['6555900000604105', credit('KR')],
  ['3566002020360505', credit('JP')],
  ['6200000000000005', credit('CN')],
  ['6200000000000047', debit('CN')],
  ['6205500000000000004', credit('CN')],
  // Co-branded
  ['4000002500001001', credit('FR')],
  ['5555552500001001', credit('FR')],
  ['4000050360000001', debit('AU')],
  ['5555050360000080', debit('AU')],
  // By country
  ['4000000760000002', credit('BR')],
  ['4000001240000000', credit('CA')],
  ['4000004840008001', credit('MX')],
  ['4000000400000008', credit('AT')],
  ['4000000560000004', credit('BE')],
  ['4000002080000001', credit('DK')],
  ['4000002460000001', credit('FI')],
  ['4000002500000003', credit('FR')],
  ['4000002760000016', credit('DE')],
  ['4000003720000005', credit('IE')],
  ['4000003800000008', credit('IT')],
  ['4000004420000006', credit('LU')],
  ['4000005280000002', credit('NL')],
  ['4000005780000007', credit('NO')],
  ['4000006200000007', credit('PT')],
  ['4000007240000007', credit('ES')],
  ['4000007520000008', credit('SE')],
  ['4000007560000009', credit('CH')],
  ['4000008260000000', credit('GB')],
  ['4000058260000005', debit('GB')],
  ['5555558265554449', credit('GB')],
  ['4000000360000006', credit('AU')],
  ['4000003440000004', credit('HK')],
  ['4000003920000003', credit('JP')],
  ['3530111333300000', credit('JP')],
  ['4000007020000003', credit('SG')],
  ['4000005540000008', credit('NZ')],
  ['4000003560000008', credit('IN')],
  // Declines, checks and fraud rules (they tokenize; a charge would fail)
  ['4000000000000002', credit('US')],
  ['4000000000009995', credit('US')],
  ['4000000000009987', credit('US')],
  ['4000000000009979', credit('US')],
  ['4000000000000069', credit('US')],
  ['4000000000000127', credit('US')],
  ['4000000000000119', credit('US')],
  ['4000000000000101', credit('US')],
  ['4000000000000036', credit('US')],
  ['4000000000000028', credit('US')],
  ['4000000000000010', credit('US')],
  ['4000000000000341', credit('US')],
  ['4000000000000077', credit('US')],
  ['4000000000005126', credit('US')],
  ['4100000000000019', credit('US')],
  ['4000000000004954', credit('US')],
  ['4000000000009235', credit('US')],
  ['4000000000000259', credit('US')],
  ['4000000000001976', credit('US')],
  ['4000000000002685', credit('US')],
  ['4000000000003220', credit('US')],
  ['4000000000003063', credit('US')],
  ['4000002500003155', credit('US')],
]);

/**
 * What a card does when attached to a customer or charged, without a payment network: decided once, when
 * the card is tokenized (the number is never stored), from the reference's published test card numbers.
 * `succeeds` for every test card that charges; null for a live-mode card (no network to ask: see
 * shared/billing/payment-gateway.ts).
 */
export type CardOutcome =
  | 'succeeds'
  | 'generic_decline'
  | 'insufficient_funds'
  | 'lost_card'
  | 'stolen_card'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'fraudulent'
  | 'charge_fails';

export const cardOutcomes = [
  'succeeds',
  'generic_decline',
  'insufficient_funds',
  'lost_card',
  'stolen_card',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  'fraudulent',
  'charge_fails',
] as const satisfies readonly CardOutcome[];

/** A declined card: the reference's card error (402 `card_error`) and whether it is declined already when attached. */
export interface CardDecline {
  code: string;
  declineCode: string;
  message: string;
  /** Declined when attached to a customer (the reference verifies a card then); false: attaches, every charge fails. */
  atAttach: boolean;
}

const declined = 'Your card was declined.';

/** The reference's error for each declining outcome, as its test card documentation and decline codes give them. */
export const cardDeclines: Readonly<Record<Exclude<CardOutcome, 'succeeds'>, CardDecline>> = {
  generic_decline: { code: 'card_declined', declineCode: 'generic_decline', message: declined, atAttach: true },
  insufficient_funds: { code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.', atAttach: true },
  lost_card: { code: 'card_declined', declineCode: 'lost_card', message: declined, atAttach: true },
  stolen_card: { code: 'card_declined', declineCode: 'stolen_card', message: declined, atAttach: true },
  expired_card: { code: 'expired_card', declineCode: 'expired_card', message: 'Your card has expired.', atAttach: true },
  incorrect_cvc: { code: 'incorrect_cvc', declineCode: 'incorrect_cvc', message: "Your card's security code is incorrect.", atAttach: true },
  processing_error: {
    code: 'processing_error',
    declineCode: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
    atAttach: true,
  },
  // Radar's "always blocked" card: a risk decision on a payment, so attaching it (no payment) succeeds.
  fraudulent: { code: 'card_declined', declineCode: 'fraudulent', message: declined, atAttach: false },
  // 4000000000000341: "attaching this card to a Customer object succeeds, but attempts to charge the customer fail".
  charge_fails: { code: 'card_declined', declineCode: 'generic_decline', message: declined, atAttach: false },
};

const declineCards: ReadonlyMap<string, Exclude<CardOutcome, 'succeeds'>> = new Map([
  ['4000000000000002', 'generic_decline'],
  ['4000000000009995', 'insufficient_funds'],
  ['4000000000009987', 'lost_card'],
  ['4000000000009979', 'stolen_card'],
  ['4000000000000069', 'expired_card'],
  ['4000000000000127', 'incorrect_cvc'],
  ['4000000000000119', 'processing_error'],
  ['4100000000000019', 'fraudulent'],
  ['4000000000000341', 'charge_fails'],
] as const);

/** The CVC check fails on this card when a CVC is given, and the card is then declined (else it succeeds). */
const cvcCheckFailCard = '4000000000000101';

/**
 * What a test card (a number of `testCards`) will do: its documented decline, or `succeeds` (the address
 * and CVC check cards, fraud-rule and balance cards all charge with the default settings, except the CVC
 * check card when a CVC is given).
 */
export function testCardOutcome(number: string, cvcProvided: boolean): CardOutcome {
  if (number === cvcCheckFailCard) return cvcProvided ? 'incorrect_cvc' : 'succeeds';
  return declineCards.get(number) ?? 'succeeds';
}
