/**
 * What single-use tokens bring to accounts and persons: the v1 token data (`first_name`, `dob`, …) in v2
 * names (`given_name`, `date_of_birth`, …). Id numbers never reach the token's storage; a token only says
 * one was provided, which becomes an id number entry with a type and no value.
 */
// biome-ignore lint/suspicious/noExplicitAny: token data is loose JSON in the API's shape, read field by field and re-shaped here
type Data = Record<string, any>;

const defined = (object: Data): Data => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== null));

function address(given: Data | undefined): Data | undefined {
  if (!given) return undefined;
  return defined({ city: given.city, country: given.country, line1: given.line1, line2: given.line2, postal_code: given.postal_code, state: given.state });
}

/** A v1 id number becomes a typed v2 one; the value never left the token service. */
const idNumberType = (country: unknown, kind: 'person' | 'business') =>
  country === 'US' ? (kind === 'person' ? 'us_ssn' : 'us_ein') : `${String(country ?? 'xx').toLowerCase()}_${kind === 'person' ? 'national_id' : 'company_id'}`;

/** v1 person fields (first_name, dob, …) as v2 person fields (given_name, date_of_birth, …). */
export function personFieldsFromToken(data: Data): Data {
  const home = address(data.address);
  return defined({
    given_name: data.first_name,
    surname: data.last_name,
    email: data.email,
    phone: data.phone,
    date_of_birth: data.dob ? defined({ day: data.dob.day, month: data.dob.month, year: data.dob.year }) : undefined,
    address: home,
    nationalities: data.nationality ? [data.nationality] : undefined,
    political_exposure: data.political_exposure,
    relationship: data.relationship
      ? defined({
          ...data.relationship,
          percent_ownership: data.relationship.percent_ownership === undefined ? undefined : String(data.relationship.percent_ownership),
        })
      : undefined,
    metadata: data.metadata,
    id_numbers: data.id_number_provided ? [{ type: idNumberType(home?.country, 'person') }] : undefined,
  });
}

/** A v1 account token (`business_type`, `individual`, `company`, `tos_shown_and_accepted`) as a v2 identity. */
export function accountIdentityFromToken(data: Data, now = Date.now()): Data {
  const company: Data | undefined = data.company;
  const individual = data.individual ? personFieldsFromToken(data.individual) : undefined;
  const businessAddress = address(company?.address);
  return defined({
    entity_type: data.business_type,
    country: individual?.address?.country ?? businessAddress?.country,
    individual,
    business_details: company
      ? defined({
          registered_name: company.name,
          address: businessAddress,
          phone: company.phone,
          structure: company.structure,
          id_numbers: company.tax_id_provided ? [{ type: idNumberType(businessAddress?.country, 'business') }] : undefined,
        })
      : undefined,
    attestations: data.tos_shown_and_accepted ? { terms_of_service: { account: { date: new Date(now).toISOString() } } } : undefined,
  });
}
