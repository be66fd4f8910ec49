// Texts of the public pages (product guide, sign-in hand-off, shared order demand).
export const publicEn = {
  contents: 'Contents',
  signIn: 'Sign in',
  openConsole: 'Open the console',
  redirecting: 'Taking you to the console…',
  demandMissingTitle: 'This link is incomplete',
  demandMissing: 'An order demand is opened from the share link its owner sends you. Ask for the link again and open it in full.',
  demandInvalidTitle: 'This link is not valid',
  demandInvalid: 'The share link is wrong, was replaced, or the order demand was deleted. Ask its owner for a new link.',
  checking: 'Opening the order demand…',
};

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
