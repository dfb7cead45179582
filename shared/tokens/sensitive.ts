import type {
  AccountParams,
  AccountTokenData,
  CompanyParams,
  CompanyTokenData,
  IndividualParams,
  IndividualTokenData,
  PersonParams,
  PersonTokenData,
} from './schemas.ts';

/**
 * Every token parameter that is never stored, logged or hashed in the clear: full card numbers, CVCs,
 * full bank account numbers, identity and tax numbers. (`ssn_last_4` is kept, as the reference shows it
 * was provided and accounts map it.)
 */
export const sensitiveParamPaths: ReadonlyArray<readonly string[]> = [
  ['card', 'number'],
  ['card', 'cvc'],
  ['bank_account', 'account_number'],
  ['cvc_update', 'cvc'],
  ['pii', 'id_number'],
  ['person', 'id_number'],
  ['person', 'id_number_secondary'],
  ['account', 'individual', 'id_number'],
  ['account', 'individual', 'id_number_secondary'],
  ['account', 'company', 'tax_id'],
  ['account', 'company', 'vat_id'],
];

/** A copy of `params` with each sensitive value replaced by `digest(value)` (for the idempotency fingerprint). */
export function withSensitiveReplaced(params: Record<string, unknown>, digest: (value: string) => string): Record<string, unknown> {
  const copy = structuredClone(params);
  for (const path of sensitiveParamPaths) {
    let parent: unknown = copy;
    for (const segment of path.slice(0, -1)) parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[segment] : undefined;
    const leaf = path.at(-1)!;
    if (parent === null || typeof parent !== 'object') continue;
    const holder = parent as Record<string, unknown>;
    if (holder[leaf] !== undefined) holder[leaf] = `digest:${digest(JSON.stringify(holder[leaf]))}`;
  }
  return copy;
}

function identityData<T extends PersonParams | IndividualParams>(params: T) {
  const { id_number, id_number_secondary, ...kept } = params;
  return {
    ...kept,
    id_number_provided: id_number !== undefined,
    id_number_secondary_provided: id_number_secondary !== undefined,
    ssn_last_4_provided: params.ssn_last_4 !== undefined,
  };
}

export const personTokenData = (params: PersonParams): PersonTokenData => identityData(params);

function companyTokenData(params: CompanyParams): CompanyTokenData {
  const { tax_id, vat_id, ...kept } = params;
  return { ...kept, tax_id_provided: tax_id !== undefined, vat_id_provided: vat_id !== undefined };
}

export function accountTokenData(params: AccountParams): AccountTokenData {
  return {
    ...(params.business_type !== undefined && { business_type: params.business_type }),
    ...(params.company !== undefined && { company: companyTokenData(params.company) }),
    ...(params.individual !== undefined && { individual: identityData(params.individual) as IndividualTokenData }),
    ...(params.tos_shown_and_accepted !== undefined && { tos_shown_and_accepted: params.tos_shown_and_accepted }),
  };
}
