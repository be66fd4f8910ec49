import type { publicEn } from './public.ts';

// The Chinese texts of public.ts; `typeof publicEn` makes the compiler check the keys. A file of its own, so
// a page loads only its language (src/i18n/index.ts).
export const publicZh: typeof publicEn = {
  contents: '目录',
  signIn: '登录',
  openConsole: '进入控制台',
  redirecting: '正在进入控制台…',
  demandMissingTitle: '链接不完整',
  demandMissing: '订单需求需要通过其所有者发送的分享链接打开。请重新获取链接并完整打开。',
  demandInvalidTitle: '链接无效',
  demandInvalid: '分享链接有误、已被更换，或该订单需求已删除。请向其所有者索取新链接。',
  checking: '正在打开订单需求…',
};
