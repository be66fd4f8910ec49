import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as rules from '../../protocol/rules/identity-rules.ts';
import { identityMessageKey } from '../../src/pages/commerce/identity-messages.ts';
import { en } from '../../src/i18n/locales/en.ts';
import { type Client, client } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAsAdmin, injectTestServer, type TestServer } from '../support/server.ts';

const { IdentityMessage } = rules;
const TODAY = Date.UTC(2026, 10, 22);
const digit = fc.integer({ min: 0, max: 9 }).map(String);
const digits = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''));

// A well-formed national ID: region not starting 0, a birth date 1900-01-01..today, sequence, GB 11643 check.
const nationalId = fc
  .tuple(fc.integer({ min: 1, max: 9 }).map(String), digits(5), fc.integer({ min: Date.UTC(1900, 0, 1), max: TODAY }), digits(3))
  .map(([first, region, birth, seq]) => {
    const body = `${first}${region}${new Date(birth).toISOString().slice(0, 10).replace(/-/g, '')}${seq}`;
    return body + rules.nationalIdCheck(body);
  });

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const vin = fc.array(fc.constantFrom(...VIN_CHARS), { minLength: 17, maxLength: 17 }).map((chars) => {
  const draft = chars.join('');
  return `${draft.slice(0, 8)}${rules.vinCheck(draft)}${draft.slice(9)}`;
});

const replaceAt = (text: string, at: number, ch: string) => `${text.slice(0, at)}${ch}${text.slice(at + 1)}`;

describe('national ID (GB 11643)', () => {
  it('every generated ID with its check character passes', () => {
    fc.assert(fc.property(nationalId, (id) => rules.isNationalId(id, TODAY)), { numRuns: 1000 });
  });

  it('any single-character corruption fails', () => {
    fc.assert(
      fc.property(nationalId, fc.nat(17), fc.constantFrom(...'0123456789X'), (id, at, ch) => {
        fc.pre(id[at] !== ch);
        expect(rules.isNationalId(replaceAt(id, at, ch), TODAY)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('examples, with the spec message', () => {
    // The standard's own example; a lower-case x is the same check character.
    expect(rules.checkIdentity('nationalId', '11010519491231002X', TODAY)).toBeUndefined();
    expect(rules.checkIdentity('nationalId', '11010519491231002x', TODAY)).toBeUndefined();
    for (const bad of [
      '110105194912310021', // wrong check character
      '11010519491231002', // 17 characters
      '011105194912310025', // region starting 0
      '110105190002290029', // 1900-02-29 does not exist
      '110105203001010010', // born in the future
      '440524188001010014', // valid checksum, but born 1880: before 1900
      '11010519491231002Y',
    ]) {
      expect(rules.checkIdentity('nationalId', bad, TODAY)).toBe('ID number incorrect');
    }
  });
});

describe('VIN (ISO 3779 check digit)', () => {
  it('every generated VIN with its check digit passes, in either case', () => {
    fc.assert(fc.property(vin, (v) => rules.isVin(v) && rules.isVin(v.toLowerCase())), { numRuns: 1000 });
  });

  it('a single-character corruption fails unless it keeps the transliterated value outside the check position', () => {
    // ISO 3779 maps several letters to one value (A and J are 1, B K S are 2...): swapping those cannot be
    // detected by design; every other substitution, and I, O and Q anywhere, must fail.
    fc.assert(
      fc.property(vin, fc.nat(16), fc.constantFrom(...`${VIN_CHARS}IOQ`), (v, at, ch) => {
        const old = v[at] as string;
        fc.pre(old !== ch);
        const undetectable = at !== 8 && rules.vinValue(ch) !== undefined && rules.vinValue(ch) === rules.vinValue(old);
        expect(rules.isVin(replaceAt(v, at, ch))).toBe(undetectable);
      }),
      { numRuns: 3000 },
    );
  });

  it('examples, with the message', () => {
    expect(rules.checkIdentity('vin', '1M8GDM9AXKP042788', TODAY)).toBeUndefined();
    expect(rules.checkIdentity('vin', '11111111111111111', TODAY)).toBeUndefined();
    for (const bad of ['1M8GDM9A1KP042788', '1M8GDM9AXKP04278', '1M8GDM9AXKP0427888', '1M8GDM9AXKP04278I', '']) {
      expect(rules.checkIdentity('vin', bad, TODAY)).toBe(IdentityMessage.Vin);
    }
  });
});

describe('phone variants and licence plates', () => {
  it('11 digits starting 1 pass the plain rule; the stricter one takes only 13, 14, 15, 17, 18, 19', () => {
    fc.assert(
      fc.property(digit, digits(9), (second, rest) => {
        const phone = `1${second}${rest}`;
        expect(rules.checkPhone(phone, false)).toBeUndefined();
        expect(rules.checkPhone(phone, true)).toBe('345789'.includes(second) ? undefined : 'only mainland China mobile numbers supported');
      }),
    );
    for (const bad of ['2345', '23800138000', '1380013800', '138001380000', '1380013800a', ' 13800138000']) {
      expect(rules.checkIdentity('phone', bad, TODAY)).toBe('Please enter a correct 11-digit mobile phone number');
      expect(rules.checkIdentity('mainlandPhone', bad, TODAY)).toBe('Please enter a correct 11-digit mobile phone number');
    }
    expect(rules.checkIdentity('mainlandPhone', '16612345678', TODAY)).toBe('only mainland China mobile numbers supported');
    expect(rules.checkIdentity('mainlandPhone', '13800138000', TODAY)).toBeUndefined();
  });

  it('mainland plates, ordinary and new-energy, with the spec message', () => {
    for (const good of ['粤B12345', '京AF0236', '沪A1234学', '苏E1234挂', '粤BD12345', '沪AFA1234', '粤B12345D', '川a12345']) {
      expect(rules.checkIdentity('plate', good, TODAY)).toBeUndefined();
    }
    for (const bad of ['AB12345', '粤I12345', '粤B1234', '粤BO1234', '粤B123456', '粤BD1234A', '粤B1234DD', '港B12345', '']) {
      expect(rules.checkIdentity('plate', bad, TODAY)).toBe('licence plate incorrect');
    }
  });

  it('the console has a translation for every message of the rules', () => {
    for (const message of Object.values(rules.IdentityMessage)) {
      const key = identityMessageKey(message);
      expect(key, message).not.toBe('cards.rule.required');
      const text = key.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown> | undefined)?.[part], en);
      expect(typeof text, key).toBe('string');
    }
  });
});

const targets = await dbTargets();

for (const target of targets) {
  describe.skipIf(!target.available)(`identity checks on the forms that take them (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    const demand = (fields: object[]) => ({ name: 'Sprayer retrofit', customer: 'North Farm', kind: 'rework', model: 'S9', fittings: [], fields, quantity: 3 });

    it('order-demand text fields with a check are refused with the spec message and kept when right', async () => {
      const add = (fields: object[]) => admin.call('POST', '/order-requirements/add', demand(fields));
      expect((await add([{ label: 'Owner ID', type: 'text', value: '110105194912310021', rule: 'nationalId' }])).message).toBe('Owner ID: ID number incorrect');
      expect((await add([{ label: 'Plate', type: 'text', value: '粤I12345', rule: 'plate' }])).message).toBe('Plate: licence plate incorrect');
      expect((await add([{ label: 'Tractor', type: 'text', value: '1M8GDM9A1KP042788', rule: 'vin' }])).message).toBe(`Tractor: ${IdentityMessage.Vin}`);
      expect((await add([{ label: 'Mobile', type: 'text', value: '1380013800', rule: 'phone' }])).message).toBe('Mobile: Please enter a correct 11-digit mobile phone number');
      expect((await add([{ label: 'Mobile', type: 'text', value: '16612345678', rule: 'mainlandPhone' }])).message).toBe('Mobile: only mainland China mobile numbers supported');
      expect((await add([{ label: 'Plate', type: 'select', value: 'x', options: ['x'], rule: 'plate' }])).message).toBe('Plate: Only text fields take a phone, ID, plate or VIN check');
      expect((await add([{ label: 'Plate', type: 'text', value: 'x', rule: 'passport' }])).code).toBe(40001);

      const fields = [
        { label: 'Owner ID', type: 'text', value: ' 11010519491231002X ', rule: 'nationalId' },
        { label: 'Plate', type: 'text', value: '粤BD12345', rule: 'plate' },
        { label: 'Tractor', type: 'text', value: '1M8GDM9AXKP042788', rule: 'vin' },
        { label: 'Mobile', type: 'text', value: '13800138000', rule: 'mainlandPhone' },
        { label: 'Backup', type: 'text', value: '', rule: 'phone' },
      ];
      const saved = await admin.ok<{ id: number; fields: unknown }>('POST', '/order-requirements/add', demand(fields));
      expect(saved.fields).toEqual(fields.map((f) => ({ ...f, value: f.value.trim() })));
    });

    it('logistics phones of card purchases take the stricter mainland rule', async () => {
      const order = (phone: string) => admin.call('POST', '/pay-data/createOrder', { type: 'sim', quantity: 1, formFactor: 'nano', logistics: { area: 'Guangdong', address: '1 Park Rd', contact: 'Li Lei', phone } });
      expect((await order('2345')).message).toBe('Please enter a correct 11-digit mobile phone number');
      expect((await order('12345678901')).message).toBe('only mainland China mobile numbers supported');
      expect((await order('13800138000')).code).toBe(20000);
    });
  });
}
