import {
  cardStatusLabels,
  carrierLabels,
  comboTypeLabels,
  type EnumMember,
  juxinCardStatusLabels,
  labelOf,
  realStatusLabels,
  simFormFactorLabels,
  springCardStatusLabels,
  statusChangeReasonLabels,
} from '../../../protocol/index.ts';
import type { Card, CardFamily } from '../../api/cards.ts';
import { currentLanguage } from '../../i18n/index.ts';

/** The catalogue label of a wire value in the console's language, or the value itself when unknown. */
export function label(list: readonly EnumMember<string | number>[], value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  return labelOf(list, value)?.[currentLanguage] ?? String(value);
}

/** Choices of a filter select: every member of a catalogue. */
export function options<V extends string | number>(list: readonly EnumMember<V>[]): { value: string; label: string }[] {
  return list.map((m) => ({ value: String(m.value), label: m[currentLanguage] }));
}

/** The status list of each card family. */
export const statusLabels: Record<CardFamily, readonly EnumMember<string | number>[]> = {
  spring: springCardStatusLabels,
  link: cardStatusLabels,
  juxin: juxinCardStatusLabels,
};

export function statusOf(card: Card): string {
  if (card.family === 'spring') return label(springCardStatusLabels, card.springStatus);
  if (card.family === 'link') return label(cardStatusLabels, card.cardStatus);
  return label(juxinCardStatusLabels, card.juxinStatus);
}

export const carrierOf = (card: Card) => label(carrierLabels, card.carrier);
export const comboOf = (card: Card) => label(comboTypeLabels, card.comboType);
export const realStatusOf = (card: Card) => label(realStatusLabels, card.realStatus);
export const reasonOf = (reason: string) => label(statusChangeReasonLabels, reason);
export const formFactorOf = (card: Card) => label(simFormFactorLabels, card.formFactor);

/** True while the card can be stopped; a stopped card can be restarted. */
export function isRunning(card: Card): boolean {
  if (card.family === 'spring') return card.springStatus === '00' || card.springStatus === '10';
  if (card.family === 'link') return card.realStatus === 10 || card.realStatus === 100 || card.realStatus === 150;
  return card.juxinStatus === 2;
}

export function isStopped(card: Card): boolean {
  if (card.family === 'spring') return card.springStatus === '02' || card.springStatus === '12';
  if (card.family === 'link') return card.cardStatus === 40 && (card.realStatus === 200 || card.realStatus === 300);
  return card.juxinStatus === 3 || card.juxinStatus === 5;
}

/** A history row's status text (the family's own code; link cards "card/real") in words. */
export function eventStatusOf(family: CardFamily, text: string): string {
  if (family === 'spring') return label(springCardStatusLabels, text);
  if (family === 'juxin') return label(juxinCardStatusLabels, Number(text));
  const [card, real] = text.split('/');
  return `${label(cardStatusLabels, Number(card))} / ${label(realStatusLabels, Number(real))}`;
}
