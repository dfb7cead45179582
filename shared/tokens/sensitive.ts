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
