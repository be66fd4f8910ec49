// Shared by reports.ts and reports.zh.ts, so neither language's file imports the other's.
import { abnormalTypeLabels, type AbnormalTypeName } from '../../../protocol/index.ts';

/** The abnormal type names in one language, from the protocol's one copy (exports use it too). */
export function typeNames(lang: 'en' | 'zh'): Record<AbnormalTypeName, string> {
  const out = {} as Record<AbnormalTypeName, string>;
  for (const [type, label] of Object.entries(abnormalTypeLabels) as [AbnormalTypeName, { en: string; zh: string }][]) out[type] = label[lang];
  return out;
}
