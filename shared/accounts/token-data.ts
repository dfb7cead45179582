import { systemClock } from '#shared/core/clock.ts';
import type { TokenOf } from '#shared/tokens/token.ts';

/**
 * What single-use tokens bring to accounts and persons, as the inline parameters they stand for. A v2
 * token holds those parameters already (validated by the same schemas, id numbers by type only); its
 * attestations (`attested`, `shown_and_accepted`) become records of the token's creation: its time, the
 * client's IP and user agent. A v1 token's data (`first_name`, `dob`, …) is renamed to v2
 * (`given_name`, `date_of_birth`, …); it only says an id number was provided, which becomes an id number
 * entry with a type and no value.
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
function personFieldsFromToken(data: Data): Data {
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
function accountIdentityFromToken(data: Data, now = systemClock()): Data {
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

/** The attestation record a yes in a v2 token stands for: when and from where the token was made. */
function attestationOf(token: TokenOf<'v2_account' | 'v2_person'>): Data {
  return defined({ date: new Date(token.created).toISOString(), ip: token.clientIp, user_agent: token.v2.userAgent ?? undefined });
}

function v2Attestations(given: Data | undefined, record: Data): Data | undefined {
  if (!given) return undefined;
  const declared = (name: string) => (given[name]?.attested ? record : undefined);
  const termsAccepted = given.terms_of_service?.account?.shown_and_accepted === true;
  const attestations = defined({
    directorship_declaration: declared('directorship_declaration'),
    ownership_declaration: declared('ownership_declaration'),
    representative_declaration: declared('representative_declaration'),
    persons_provided: given.persons_provided,
    terms_of_service: termsAccepted ? { account: record } : undefined,
  });
  return Object.keys(attestations).length > 0 ? attestations : undefined;
}

/** The account parameters an account token (v2, or v1 `account`) stands for: `contact_*`, `display_name`, `identity`. */
export function accountParamsFromToken(token: TokenOf<'v2_account' | 'account'>): Data {
  if (token.type === 'account') return { identity: accountIdentityFromToken(token.account, token.created) };
  const { identity, ...contact } = token.v2.params as Data;
  if (!identity) return contact;
  const attestations = v2Attestations(identity.attestations, attestationOf(token));
  return { ...contact, identity: defined({ ...identity, attestations }) };
}

/** The person parameters a person token (v2, or v1 `person`) stands for. */
export function personParamsFromToken(token: TokenOf<'v2_person' | 'person'>): Data {
  if (token.type === 'person') return personFieldsFromToken(token.person);
  const { additional_terms_of_service: terms, ...fields } = token.v2.params as Data;
  const accepted = terms?.account?.shown_and_accepted === true;
  return defined({ ...fields, additional_terms_of_service: accepted ? { account: attestationOf(token) } : undefined });
}
