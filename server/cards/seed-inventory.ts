import {
  AddressSource,
  AddressType,
  CardStatus,
  type CarrierCode,
  type ComboTypeCode,
  GroupAddressState,
  ImportType,
  JuxinCardStatus,
  RealStatus,
  SimFormFactor,
  SpringCardStatus,
  StatusChangeReason,
  type Clock,
} from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { Insertable } from 'kysely';
import type { SimCardTable } from '../db/schema.ts';
import { CARD_TYPES, CERTIFICATIONS, GB, MB, TRAFFIC_VALIDITY_MS } from './card-codes.ts';
import { DAY_MS } from '../carrier/simulated-carrier.ts';
import { seedTruePoint } from '../commerce/truepoint-repository.ts';

/** The preset cloud-provider directional addresses (devices-and-commerce section 9: "a preset list of three"). */
export const PRESET_ADDRESSES = [
  { address: '*.aliyuncs.com', description: 'Alibaba Cloud' },
  { address: '*.tencentcloudapi.com', description: 'Tencent Cloud' },
  { address: '*.myhuaweicloud.com', description: 'Huawei Cloud' },
] as const;

const CARRIERS: readonly CarrierCode[] = ['CM', 'CU', 'CT', 'AL'];
const COMBOS: readonly ComboTypeCode[] = ['SC', 'SCD', 'SF', 'SFD', 'UP', 'UPG'];
const FORMS = Object.values(SimFormFactor);

/** A small deterministic generator, so every fresh start seeds the same inventory. */
function generator(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

function digits(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 10);
  return s;
}

/**
 * Seeds cards of all three families, one directional group and true-point accounts for every organisation,
 * once, so every screen of the area has data on a fresh start. Does nothing when any card exists.
 */
export async function seedCardInventory(db: Db, clock: Clock): Promise<void> {
  if (await db.selectFrom('sim_cards').select('id').limit(1).executeTakeFirst()) return;
  const orgs = await db.selectFrom('organisations').select('id').orderBy('id').execute();
  const now = clock.now();
  const rand = generator(20261122);
  for (const org of orgs) {
    const group = await db.insertInto('direction_groups').values({ org_id: org.id, name: 'Telematics', remark: 'Seeded group', created_at: now }).returning('id').executeTakeFirstOrThrow();
    await db
      .insertInto('direction_addresses')
      .values([
        ...PRESET_ADDRESSES.map((p) => ({
          group_id: group.id,
          address: p.address,
          address_type: AddressType.Domain,
          description: p.description,
          source: AddressSource.AliyunDefined,
          import_type: ImportType.New,
          state: GroupAddressState.Added,
          effective_at: now,
          created_at: now,
        })),
        { group_id: group.id, address: '47.96.12.8', address_type: AddressType.Ip, description: 'Telemetry gateway', source: AddressSource.UserDefined, import_type: ImportType.New, state: GroupAddressState.Added, effective_at: now, created_at: now },
      ])
      .execute();

    const cards: Insertable<SimCardTable>[] = [];
    const card = (family: string, i: number, status: Partial<Insertable<SimCardTable>>, over: Partial<Insertable<SimCardTable>> = {}): Insertable<SimCardTable> => {
      const carrier = CARRIERS[i % CARRIERS.length] as CarrierCode;
      const combo = COMBOS[i % COMBOS.length] as ComboTypeCode;
      const quota = (1 + (i % 4)) * GB;
      return {
        org_id: org.id,
        family,
        iccid: `8986${family === 'spring' ? '04' : family === 'link' ? '11' : '06'}${String(org.id).padStart(3, '0')}${digits(rand, 11)}`,
        msisdn: `14${digits(rand, 9)}`,
        imsi: `46000${digits(rand, 10)}`,
        carrier,
        card_type: CARD_TYPES[i % CARD_TYPES.length] as string,
        combo_type: combo,
        spring_status: null,
        card_status: null,
        real_status: null,
        juxin_status: null,
        status_reason: StatusChangeReason.CarrierStatusPush,
        status_changed_at: now - (i + 1) * DAY_MS,
        used_bytes: Math.floor(rand() * 0.6 * quota),
        usage_since: now,
        daily_rate_bytes: Math.floor((5 + rand() * 40) * MB),
        quota_bytes: quota,
        expire_time: now + TRAFFIC_VALIDITY_MS - i * 30 * DAY_MS,
        apn: carrier === 'CM' ? 'CMIOT' : carrier === 'CU' ? 'UNIM2M.NJM2MAPN' : carrier === 'CT' ? 'CTNET' : 'IOT.VNO',
        certification: CERTIFICATIONS[i % CERTIFICATIONS.length] as string,
        form_factor: FORMS[i % FORMS.length] as string,
        group_id: combo.endsWith('D') || combo === 'UPG' ? group.id : null,
        model: ['T10', 'T20 Pro', 'G5'][i % 3] as string,
        device_sn: `SN${digits(rand, 8)}`,
        activated_at: now - (i + 30) * DAY_MS,
        created_at: now - i * 1000,
        ...status,
        ...over,
      };
    };
    const springStates = Object.values(SpringCardStatus);
    // Half are China Mobile cards, the ones with the 2-a-day stop/restart rule.
    for (let i = 0; i < 18; i++) {
      const s = springStates[i % springStates.length] as string;
      cards.push(card('spring', i, { spring_status: s }, { carrier: i < 9 ? 'CM' : (CARRIERS[1 + ((i - 9) % 3)] as CarrierCode) }));
    }
    // Link cards: mostly in use, some in test, not yet used (first data record due soon), stopped and closed.
    const linkStates: [number, number][] = [
      [CardStatus.InUse, RealStatus.InUse],
      [CardStatus.InUse, RealStatus.PartlyInUse],
      [CardStatus.Testable, RealStatus.TestPeriod],
      [CardStatus.NotUsed, RealStatus.QuietPeriod],
      [CardStatus.InUse, RealStatus.InUse],
      [CardStatus.Stopped, RealStatus.ActiveStop],
      [CardStatus.Stopped, RealStatus.QuotaStop],
      [CardStatus.Deactivated, RealStatus.QuietPeriod],
      [CardStatus.InUse, RealStatus.InUse],
      [CardStatus.AccountClosed, RealStatus.AccountClosed],
    ];
    for (let i = 0; i < 24; i++) {
      const [c, r] = linkStates[i % linkStates.length] as [number, number];
      const over: Partial<Insertable<SimCardTable>> = {};
      if (c === CardStatus.NotUsed) Object.assign(over, { used_bytes: 0, usage_since: now + (i + 1) * 60_000, activated_at: null });
      if (r === RealStatus.QuotaStop) over.used_bytes = (1 + (i % 4)) * GB;
      cards.push(card('link', i, { card_status: c, real_status: r }, over));
    }
    const juxinStates = Object.values(JuxinCardStatus);
    for (let i = 0; i < 10; i++) cards.push(card('juxin', i, { juxin_status: juxinStates[i % juxinStates.length] as number }));
    await db.insertInto('sim_cards').values(cards).execute();
    await seedTruePoint(db, org.id, now);
  }
}
