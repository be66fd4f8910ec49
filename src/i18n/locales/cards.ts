// Texts of one console area, in both languages; `typeof cardsEn` makes the compiler check the zh keys.
export const cardsEn = {};

export const cardsZh: typeof cardsEn = {};
