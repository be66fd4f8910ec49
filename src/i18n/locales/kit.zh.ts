import type { kitEn } from './kit.ts';

// The Chinese texts of kit.ts; `typeof kitEn` makes the compiler check the keys. A file of its own, so
// a page loads only its language (src/i18n/index.ts).
export const kitZh: typeof kitEn = {
  table: {
    loading: '加载中…',
    empty: '暂无数据',
    error: '数据加载失败，请刷新页面',
    retry: '重试',
    columns: '列',
    actions: '操作',
    selectedOnPage: '本页已选 {{count}} 项。',
    selectAllMatching: '选择全部 {{total}} 项',
    allMatchingSelected: '已选择全部 {{total}} 项。',
    clearSelection: '清除选择',
    selectRow: '选择此行',
    selectPage: '选择本页',
    total: '共 {{total}} 项',
  },
  form: {
    required: '此项不能为空！',
    tooLong: '最多 {{max}} 个字符',
    noEmoji: '不能包含表情符号',
    noChinese: '不能包含中文字符',
    email: '请输入有效的邮箱地址',
    phone: '请输入正确的 11 位手机号码',
    integer: '请输入 {{min}} 到 {{max}} 之间的整数',
  },
};
