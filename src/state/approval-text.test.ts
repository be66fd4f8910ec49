import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { Command } from '../../protocol/index.ts';
import { en } from '../i18n/locales/en.ts';
import { zh } from '../i18n/locales/zh.ts';
import { approvalDecisionText } from './approval-text.ts';

// The requester's live notice of a decision (command 196613), worded in both languages from the real locales.
describe('four-eyes decision notices', () => {
  const instance = i18next.createInstance();
  void instance.init({ resources: { en: { translation: en }, zh: { translation: zh } }, lng: 'en', interpolation: { escapeValue: false }, initAsync: false });
  const t = (lng: 'en' | 'zh') => instance.getFixedT(lng);
  const reset = { id: 7, kind: 'command', msgId: Command.FactoryReset, targetCount: 1, decidedBy: 'alice', reason: '' } as const;

  it('says approved, rejected with its reason, and expired, in English', () => {
    expect(approvalDecisionText(t('en'), { ...reset, state: 'approved' })).toBe('Your request 7 was approved by alice: Remote reset on 1 device(s) is running');
    expect(approvalDecisionText(t('en'), { ...reset, state: 'rejected', reason: 'not today' })).toBe('Your request 7 was rejected by alice: Remote reset on 1 device(s) will not run. Reason: not today');
    expect(approvalDecisionText(t('en'), { ...reset, state: 'expired', decidedBy: 'platform' })).toBe('Your request 7 expired without a decision: Remote reset on 1 device(s) will not run');
    expect(approvalDecisionText(t('en'), { id: 8, state: 'rejected', kind: 'campaign', msgId: Command.PushFile, targetCount: 150, decidedBy: 'bob', reason: '', contentName: 'fw 2.1' })).toBe(
      'Your request 8 was rejected by bob: Push: fw 2.1 on 150 device(s) will not run',
    );
  });

  it('says them in Chinese, with no English word', () => {
    const texts = [
      approvalDecisionText(t('zh'), { ...reset, state: 'approved' }),
      approvalDecisionText(t('zh'), { ...reset, msgId: Command.Reboot, kind: 'bulk', targetCount: 30, state: 'rejected', reason: '明天再做' }),
      approvalDecisionText(t('zh'), { ...reset, state: 'expired', decidedBy: 'platform' }),
    ];
    expect(texts[1]).toContain('原因：明天再做');
    for (const text of texts) expect(text.replace(/alice|platform/g, '')).not.toMatch(/[A-Za-z]{3,}/);
  });
});
