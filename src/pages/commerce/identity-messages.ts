import { IdentityMessage } from '../../../protocol/index.ts';

// The locale key (cards.identity.*) that translates each message of protocol/rules/identity-rules.ts.
const MESSAGE_KEY: Readonly<Record<string, string>> = {
  [IdentityMessage.Phone]: 'cards.identity.phoneRule',
  [IdentityMessage.MainlandPhone]: 'cards.identity.mainlandPhoneRule',
  [IdentityMessage.NationalId]: 'cards.identity.nationalIdRule',
  [IdentityMessage.Plate]: 'cards.identity.plateRule',
  [IdentityMessage.Vin]: 'cards.identity.vinRule',
};

/** The locale key of a message from these rules. */
export function identityMessageKey(message: string): string {
  return MESSAGE_KEY[message] ?? 'cards.rule.required';
}
