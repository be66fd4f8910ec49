import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as rules from '../../protocol/rules/address-rules.ts';

const octet = fc.integer({ min: 0, max: 255 });
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const tld = fc.stringMatching(/^[a-z]{2,6}$/);

describe('directional address rules', () => {
  it('accepts every dotted IPv4 address and refuses anything out of range', () => {
    fc.assert(fc.property(fc.tuple(octet, octet, octet, octet), (parts) => rules.isIpv4(parts.join('.'))));
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet), fc.integer({ min: 256, max: 99_999 }), fc.nat(3), (parts, big, at) => {
        const all = [...parts.map(String)];
        all.splice(at, 0, String(big));
        return !rules.isIpv4(all.join('.'));
      }),
    );
    for (const bad of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.4 ', 'a.b.c.d', '', '1..2.3']) expect(rules.checkAddress('ip', bad)).toBe('IP address incorrect');
  });

  it('accepts domain names with an optional leading wildcard, and refuses malformed ones', () => {
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), tld, fc.boolean(), (labels, top, wild) => {
        const name = `${wild ? '*.' : ''}${[...labels, top].join('.')}`;
        return rules.isDomain(name);
      }),
    );
    for (const bad of ['localhost', '*.', '*', 'a.*.com', '-a.com', 'a-.com', 'a..com', 'a.com.', 'a.c0m1', '1.2.3.4', 'exa mple.com', `${'a'.repeat(64)}.com`]) {
      expect(rules.checkAddress('domain', bad)).toBe('domain name incorrect');
    }
  });
});
