import type { recordingsEn } from './recordings.ts';

// The Chinese texts of recordings.ts; `typeof recordingsEn` makes the compiler check the keys. A file of its own, so
// a page loads only its language (src/i18n/index.ts).
export const recordingsZh: typeof recordingsEn = {
  kinds: { shell: '终端', live: '实时画面' },
  device: '设备',
  kind: '类型',
  account: '账号',
  start: '开始时间',
  end: '结束时间',
  size: '大小',
  running: '录制中…',
  download: '下载',
  replay: '回放',
  sn: '设备SN',
  allKinds: '全部类型',
  from: '开始',
  to: '结束',
  search: '搜索',
  reset: '重置',
  empty: '没有符合条件的会话录像',
  policy: {
    title: '录像策略',
    organisation: '组织',
    off: '关闭',
    on: '开启',
    required: '强制',
    help: '开启：终端和实时画面会话都会录像。强制：无法录像的会话将被拒绝。',
    saved: '录像策略已保存',
  },
  openRecordings: '录像',
};
