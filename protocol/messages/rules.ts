import { type AddressProblem, AddressMessage } from '../rules/address-rules.ts';
import { type IdentityProblem, IdentityMessage } from '../rules/identity-rules.ts';
import type { PlainMessageKey } from './format.ts';

type RuleText = IdentityProblem | AddressProblem;

// The shared rule modules answer with the spec's English text (the console maps it to its own labels);
// this gives the same answers as message keys for the server's envelope.
const ruleKeys: Readonly<Record<RuleText, PlainMessageKey>> = {
  [IdentityMessage.Phone]: 'identity.phone',
  [IdentityMessage.MainlandPhone]: 'identity.mainlandPhone',
  [IdentityMessage.NationalId]: 'identity.nationalId',
  [IdentityMessage.Plate]: 'identity.plate',
  [IdentityMessage.Vin]: 'identity.vin',
  [AddressMessage.Ip]: 'address.ip',
  [AddressMessage.Domain]: 'address.domain',
};

/** The message key of an answer of checkPhone, checkIdentity or checkAddress. */
export function ruleMessageKey(text: RuleText): PlainMessageKey {
  return ruleKeys[text];
}
