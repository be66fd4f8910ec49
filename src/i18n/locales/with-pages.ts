/** A language's whole catalogue: its base texts and its pages' areas (one object, as i18next holds them). */
export function withPages<B extends object, P extends object>(base: B, pages: P): B & P {
  return { ...base, ...pages };
}
