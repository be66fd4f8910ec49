// Texts of one console area, in both languages; `typeof fleetEn` makes the compiler check the zh keys.
export const fleetEn = {};

export const fleetZh: typeof fleetEn = {};
