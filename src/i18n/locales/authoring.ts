// Texts of one console area, in both languages; `typeof authoringEn` makes the compiler check the zh keys.
export const authoringEn = {};

export const authoringZh: typeof authoringEn = {};
