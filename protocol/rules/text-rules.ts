// Text rules of platform-core section 5 shared by the server's checks and the console's forms.

/** Longest remark or description. */
export const MAX_LONG_TEXT = 512;

// Emoji as the "no emoji" rule means it: pictographs, flags and keycaps. The copyright, registered and
// trade mark signs are pictographic too, but belong in company names.
const EMOJI = /(?![\u00A9\u00AE\u2122])\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;
const CHINESE = /\p{Script=Han}/u;

/** True when the text holds an emoji. */
export function hasEmoji(text: string): boolean {
  return EMOJI.test(text);
}

/** True when the text holds a Chinese character (the "no Chinese characters" rule). */
export function hasChinese(text: string): boolean {
  return CHINESE.test(text);
}

/** The email shape the server's schema takes (empty allowed there; required-ness is a separate rule). */
export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(text);
}
