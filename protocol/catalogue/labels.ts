/** A label in both console languages. */
export interface Label {
  readonly zh: string;
  readonly en: string;
}

/** One member of an enumerated catalogue: its wire value and its labels. */
export interface EnumMember<V extends string | number> extends Label {
  readonly value: V;
}

/** Look up the label of a wire value, or undefined when the value is not in the catalogue. */
export function labelOf<V extends string | number>(
  members: readonly EnumMember<V>[],
  value: V,
): Label | undefined {
  return members.find((m) => m.value === value);
}
