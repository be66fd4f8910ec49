// Texts of one console area, in both languages; `typeof contentEn` makes the compiler check the zh keys.
export const contentEn = {};

export const contentZh: typeof contentEn = {};
