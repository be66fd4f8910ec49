import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as enums from './enums.ts';
import {
  CardStatus,
  cardStatusLabels,
  Carrier,
  CarrierOperator,
  ControlType,
  DownloadState,
  downloadStateLabels,
  enumCatalogue,
  FreezeState,
  GroupAddressState,
  InstallResult,
  installResultLabels,
  JuxinCardStatus,
  Language,
  ProcessState,
  processStateLabels,
  PurchaseType,
  RealStatus,
  realStatusLabels,
  Result,
  resultLabels,
  SpringCardAction,
  SpringCardStatus,
  springCardStatusLabels,
} from './enums.ts';
import { labelOf } from './labels.ts';

type Value = string | number | boolean;
interface Member {
  readonly value: Value;
  readonly zh: string;
  readonly en: string;
}

const catalogue = Object.entries(enumCatalogue) as [string, readonly Member[]][];
const moduleExports = enums as unknown as Record<string, unknown>;

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The const object that pairs with a catalogue entry: `freezeState` -> `FreezeState`. */
function constFor(name: string): Record<string, Value> {
  const value = moduleExports[upperFirst(name)];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`no const object ${upperFirst(name)} for catalogue entry ${name}`);
  }
  return value as Record<string, Value>;
}

const isConstObject = (name: string, value: unknown): boolean =>
  /^[A-Z]/.test(name) && typeof value === 'object' && value !== null && !Array.isArray(value);

describe('enumCatalogue', () => {
  it('is not empty and lists the existing enumerations', () => {
    expect(catalogue.length).toBeGreaterThan(40);
    expect(enumCatalogue.result).toBe(resultLabels);
    expect(enumCatalogue.onlineState).toBe(enums.onlineStateLabels);
    expect(enumCatalogue.deviceState).toBe(enums.deviceStateLabels);
    expect(enumCatalogue.systemType).toBe(enums.systemTypeLabels);
  });

  it('lists every exported labels array, under its camelCase name', () => {
    const labelExports = Object.keys(moduleExports).filter((k) => k.endsWith('Labels'));
    expect(labelExports.length).toBe(catalogue.length);
    for (const exportName of labelExports) {
      const name = exportName.slice(0, -'Labels'.length);
      expect(enumCatalogue, exportName).toHaveProperty(name);
      expect((enumCatalogue as Record<string, unknown>)[name], exportName).toBe(moduleExports[exportName]);
    }
  });

  it('has a labels array for every exported const object', () => {
    const consts = Object.entries(moduleExports).filter(([k, v]) => isConstObject(k, v) && k !== 'enumCatalogue');
    expect(consts.length).toBe(catalogue.length);
    for (const [constName] of consts) {
      const name = constName.charAt(0).toLowerCase() + constName.slice(1);
      expect(enumCatalogue, constName).toHaveProperty(name);
    }
  });

  describe.each(catalogue)('%s', (name, members) => {
    it('has at least two members with unique values', () => {
      expect(members.length).toBeGreaterThanOrEqual(2);
      expect(new Set(members.map((m) => m.value)).size).toBe(members.length);
    });

    it('has non-empty, trimmed zh and en labels', () => {
      for (const m of members) {
        for (const text of [m.zh, m.en]) {
          expect(typeof text).toBe('string');
          expect(text.length, `${name} ${String(m.value)}`).toBeGreaterThan(0);
          expect(text, `${name} ${String(m.value)}`).toBe(text.trim());
        }
      }
    });

    it('has unique zh and unique en labels', () => {
      expect(new Set(members.map((m) => m.zh)).size).toBe(members.length);
      expect(new Set(members.map((m) => m.en)).size).toBe(members.length);
    });

    it('has values of one kind (all integers, all non-empty strings, or all booleans)', () => {
      const kinds = new Set(members.map((m) => typeof m.value));
      expect(kinds.size).toBe(1);
      for (const m of members) {
        if (typeof m.value === 'number') expect(Number.isInteger(m.value)).toBe(true);
        if (typeof m.value === 'string') expect(m.value.length).toBeGreaterThan(0);
      }
    });

    it('agrees with its const object: one label per const value, in the const order', () => {
      const constValues = Object.values(constFor(name));
      expect(new Set(constValues).size).toBe(constValues.length);
      expect(members.map((m) => m.value)).toEqual(constValues);
      for (const v of constValues) {
        expect(members.filter((m) => m.value === v), `${name} ${String(v)}`).toHaveLength(1);
      }
    });

    it('finds no member for a value outside the catalogue', () => {
      const known = new Set<Value>(members.map((m) => m.value));
      fc.assert(
        fc.property(
          fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 30 }), fc.boolean()).filter((v) => !known.has(v)),
          (v) => {
            expect(members.find((m) => m.value === v)).toBeUndefined();
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});

describe('labelOf over the catalogue', () => {
  it('returns the member for every value of every string or number enumeration', () => {
    for (const [name, members] of catalogue) {
      for (const m of members) {
        if (typeof m.value === 'boolean') continue;
        const list = members as readonly { value: string | number; zh: string; en: string }[];
        expect(labelOf(list, m.value), `${name} ${m.value}`).toBe(m);
      }
    }
  });
});

describe('spec values', () => {
  it('keeps the existing enumerations (devices-and-commerce section 4)', () => {
    expect(Result.DeviceOffline).toBe(5);
    expect(Result.Pushing).toBe(6);
    expect(labelOf(resultLabels, Result.DeviceOffline)?.en).toBe('The equipment is offline');
    expect(enums.OnlineState).toEqual({ Online: 1, Offline: 2 });
    expect(enums.DeviceState).toEqual({ NotActive: 0, Normal: 1, Expired: 2 });
    expect(enums.SystemType).toEqual({ Android: 'android', Linux: 'linux' });
  });

  it('card status 35 is deactivated and real status 700 is abnormal stop', () => {
    expect(CardStatus.Deactivated).toBe(35);
    expect(labelOf(cardStatusLabels, 35)).toEqual({ value: 35, zh: '已停用', en: 'Deactivated' });
    expect(Object.values(CardStatus)).toEqual([10, 20, 30, 35, 40, 50]);
    expect(RealStatus.AbnormalStop).toBe(700);
    expect(labelOf(realStatusLabels, 700)?.en).toBe('Abnormal stop');
    expect(Object.values(RealStatus)).toEqual([10, 20, 40, 50, 100, 150, 200, 300, 400, 500, 600, 700]);
  });

  it('download state 7 is duplicated download and install result -1 is preparing', () => {
    expect(DownloadState.DuplicatedDownload).toBe(7);
    expect(labelOf(downloadStateLabels, 7)).toEqual({ value: 7, zh: '重复下载', en: 'Duplicated download' });
    expect(Object.values(DownloadState)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(InstallResult.Preparing).toBe(-1);
    expect(labelOf(installResultLabels, -1)?.en).toBe('Preparing');
  });

  it("process state 'Z' is quit", () => {
    expect(ProcessState.Quit).toBe('Z');
    expect(labelOf(processStateLabels, 'Z')?.en).toBe('Quit');
    expect(Object.values(ProcessState).join('')).toBe('SRDITZX');
  });

  it('freeze, language and control type codes', () => {
    expect(FreezeState).toEqual({ Unfrozen: 1, Frozen: 2 });
    expect(Language).toEqual({ Chinese: 1, English: 2 });
    expect(ControlType).toEqual({ BySelection: false, ByQuery: true });
  });

  it('card families pair codes and labels in listed order', () => {
    expect(Object.values(SpringCardStatus)).toEqual(['00', '10', '02', '03', '04', '11', '12', '99', '15']);
    expect(springCardStatusLabels.map((m) => m.en)).toEqual([
      'Test',
      'In use',
      'Stopped',
      'Pre-cancelled',
      'Cancelled',
      'Silent period',
      'Shutdown warranty',
      'Inventory',
      'Unknown',
    ]);
    expect(SpringCardAction).toEqual({ Restart: '00', Shutdown: '01' });
    expect(Object.values(JuxinCardStatus)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(JuxinCardStatus.ToSync).toBe(6);
    expect(GroupAddressState).toEqual({ Adding: 100, Removing: 200, AddFailed: 300, DeleteFailed: 400, Added: 500 });
  });

  it('carrier code sets and commerce codes keep the spec spelling', () => {
    expect(Object.values(Carrier)).toEqual(['CM', 'CU', 'CT', 'AL']);
    expect(Object.values(CarrierOperator)).toEqual(['CMCC', 'CUCC', 'CTCC', 'VNO']);
    expect(Object.values(enums.ComboType)).toEqual(['SC', 'SCD', 'SF', 'SFD', 'UP', 'UPG']);
    expect(Object.values(enums.PaymentState)).toEqual(['SUCCESS', 'NOT_PAY', 'CLOSED']);
    expect(Object.values(enums.InvoiceType)).toEqual(['PLAIN', 'VAT']);
    expect(Object.values(enums.StatisticPeriod)).toEqual(['DATE', 'WEEK', 'MONTH', 'YEAR']);
    expect(Object.values(enums.ImportType)).toEqual(['NEW', 'TRANSFER']);
    expect(Object.values(enums.AddressSource)).toEqual(['user_defined', 'aliyun_defined']);
    expect(Object.values(PurchaseType)).toEqual([
      'flow',
      'monthly_function_fee',
      'unify_sim',
      'sim',
      'push_ticket',
      'custom_made',
      'spring_card',
      'zxj_flow',
      'zxj_monthly_function_fee',
      'zxj_unify_sim',
      'zxj_sim',
      'iso_bus_activation_code',
    ]);
  });
});
