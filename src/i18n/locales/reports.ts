// Texts of one console area, in both languages; `typeof reportsEn` makes the compiler check the zh keys.
export const reportsEn = {};

export const reportsZh: typeof reportsEn = {};
