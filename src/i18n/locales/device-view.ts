// Texts of one console area, in both languages; `typeof deviceViewEn` makes the compiler check the zh keys.
export const deviceViewEn = {};

export const deviceViewZh: typeof deviceViewEn = {};
