import { useForm, type UseFormReturnType } from '@mantine/form';
import type React from 'react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_TEXT } from '../../protocol/api/common.ts';
import { hasChinese, hasEmoji, isEmail, isPhone } from '../../protocol/index.ts';
import { RequestError, TOAST_MS } from '../api/request.ts';
import { notifications } from '../layout/toast.ts';

/** A rule's answer: undefined when the value fits, else an i18n key with its parameters. */
export type RuleAnswer = undefined | { readonly key: string; readonly params?: Record<string, unknown> };
/** A field rule; `values` are the whole form's (a confirmation compares with another field). */
export type Rule = ((value: string, values: Readonly<Record<string, string>>) => RuleAnswer) & { readonly max?: number };

/** The generic rules of platform-core section 5, as the console's forms check them on blur. */
export const rules = {
  required: (): Rule => (v) => (v.trim() ? undefined : { key: 'kit.form.required' }),
  /** At most `max` characters; the input also gets maxlength. */
  maxLength: (max: number = MAX_TEXT): Rule => Object.assign((v: string): RuleAnswer => ([...v].length > max ? { key: 'kit.form.tooLong', params: { max } } : undefined), { max }),
  noEmoji: (): Rule => (v) => (hasEmoji(v) ? { key: 'kit.form.noEmoji' } : undefined),
  noChinese: (): Rule => (v) => (hasChinese(v) ? { key: 'kit.form.noChinese' } : undefined),
  /** An optional email: empty passes. */
  email: (): Rule => (v) => (v.trim() && !isEmail(v.trim()) ? { key: 'kit.form.email' } : undefined),
  /** An optional mainland mobile number (11 digits starting 1): empty passes. */
  phone: (): Rule => (v) => (v.trim() && !isPhone(v.trim()) ? { key: 'kit.form.phone' } : undefined),
  /** A whole number from `min` to `max`, digits only (empty fails too). */
  integer:
    (min: number, max: number): Rule =>
    (v) => {
      const text = v.trim();
      return /^\d{1,9}$/.test(text) && Number(text) >= min && Number(text) <= max ? undefined : { key: 'kit.form.integer', params: { min, max } };
    },
  /** Adapts a rule answering a bare i18n key (the login rules of src/validation). */
  key:
    (check: (v: string) => string | undefined): Rule =>
    (v) => {
      const key = check(v);
      return key ? { key } : undefined;
    },
} as const;

type Values = Record<string, string>;

/** The value of FormActions' secondary submit button, by which the handler tells the two apart. */
export const SECONDARY_SUBMIT = 'secondary';

export interface ConsoleFormOptions<V extends Values> {
  readonly initialValues: V;
  /** Each field's rules, checked in order; the first answer is its error. */
  readonly rules?: { readonly [K in keyof V]?: readonly Rule[] };
  /** Server failure keys that belong to a field without naming it (e.g. 'account.taken' -> 'account'). */
  readonly serverKeys?: Readonly<Record<string, keyof V & string>>;
}

export interface ConsoleForm<V extends Values> {
  readonly form: UseFormReturnType<V>;
  /** Props for a text input: value, error, name, onChange, onBlur (checks on blur) and maxLength when a rule bounds it. */
  field: (name: keyof V & string) => {
    name: string;
    value: string;
    error: React.ReactNode;
    onChange: (e: unknown) => void;
    onBlur: (e: React.FocusEvent<HTMLElement>) => void;
    maxLength?: number;
  };
  /**
   * A form onSubmit: checks everything, runs the handler once at a time, puts server errors on their fields.
   * `secondary` is true when FormActions' secondary submit button (e.g. "Save" beside "Submit") sent it.
   */
  onSubmit: (handler: (values: V, how: { readonly secondary: boolean }) => Promise<void>) => (e?: React.FormEvent<HTMLFormElement>) => void;
  readonly submitting: boolean;
}

/** The field a server failure names: its `field` parameter `{key: 'field.<name>'}`, or a mapped key. */
export function serverField(err: unknown, names: readonly string[], serverKeys: Readonly<Record<string, string>> = {}): string | undefined {
  if (!(err instanceof RequestError)) return undefined;
  const mapped = err.key === undefined ? undefined : serverKeys[err.key];
  if (mapped) return mapped;
  for (const param of Object.values(err.params ?? {})) {
    if (param && typeof param === 'object' && 'key' in param && typeof param.key === 'string' && param.key.startsWith('field.')) {
      const name = param.key.slice('field.'.length);
      if (names.includes(name)) return name;
    }
  }
  return undefined;
}

/** The attribute FormActions puts on its buttons: a blur towards one of them checks nothing. */
export const FORM_ACTION = 'data-form-action';

// A blur caused by pressing a submit button (or FormActions' Cancel) checks nothing: the submit checks
// everything, and an error appearing or vanishing between mouse-down and mouse-up would move the button
// and lose the click.
function blurToSubmit(e: React.FocusEvent<HTMLElement>): boolean {
  const next = e.relatedTarget;
  return next instanceof HTMLButtonElement && (next.type === 'submit' || next.hasAttribute(FORM_ACTION));
}

/**
 * The one form pattern of the console (@mantine/form underneath): rules from {@link rules} checked on blur
 * with the spec's messages, `maxLength` on inputs a rule bounds, server failures mapped onto their fields,
 * and a submit that never loses a click nor runs twice. The handler's calls pass `silent: true`: the form
 * shows their failures itself, on the field a failure names or else as a toast.
 */
export function useConsoleForm<V extends Values>(options: ConsoleFormOptions<V>): ConsoleForm<V> {
  const { t } = useTranslation();
  const [submitting, setSubmitting] = useState(false);
  const busy = useRef(false);
  const fieldRules = (options.rules ?? {}) as Readonly<Record<string, readonly Rule[] | undefined>>;
  // The latest rules and language: useForm keeps the validate function it was first given.
  const latest = useRef({ fieldRules, t });
  useEffect(() => {
    latest.current = { fieldRules, t };
  });
  const check = (name: string, values: Readonly<Record<string, string>>): string | undefined => {
    for (const rule of latest.current.fieldRules[name] ?? []) {
      const answer = rule(String(values[name] ?? ''), values);
      if (answer) return latest.current.t(answer.key, { ...answer.params });
    }
    return undefined;
  };
  const form = useForm<V>({
    mode: 'controlled',
    initialValues: options.initialValues,
    validate: (values) => Object.fromEntries(Object.keys(values).map((name) => [name, check(name, values)])),
  });
  const maxOf = (name: string): number | undefined => fieldRules[name]?.find((r) => r.max !== undefined)?.max;

  const field: ConsoleForm<V>['field'] = (name) => {
    const props = form.getInputProps(name);
    const max = maxOf(name);
    return {
      name,
      value: String(form.values[name] ?? ''),
      error: props.error as React.ReactNode,
      onChange: props.onChange as (e: unknown) => void,
      onBlur: (e) => {
        if (blurToSubmit(e)) return;
        const error = check(name, form.getValues());
        if (error) form.setFieldError(name, error);
        else form.clearFieldError(name);
      },
      ...(max !== undefined ? { maxLength: max } : {}),
    };
  };

  const onSubmit: ConsoleForm<V>['onSubmit'] = (handler) =>
    form.onSubmit(async (values, event) => {
      if (busy.current) return;
      const submitter = (event?.nativeEvent as SubmitEvent | undefined)?.submitter;
      busy.current = true;
      setSubmitting(true);
      try {
        await handler(values, { secondary: submitter instanceof HTMLButtonElement && submitter.value === SECONDARY_SUBMIT });
      } catch (err) {
        // Forms call request() with silent: a failure naming a field shows there, any other as a toast.
        const name = serverField(err, Object.keys(values), options.serverKeys);
        if (name && err instanceof Error) form.setFieldError(name, err.message);
        else if (err instanceof RequestError && err.message !== 'Network Error' && err.message !== 'Cancel') {
          notifications.show({ color: 'red', message: err.message, autoClose: TOAST_MS });
        }
      } finally {
        busy.current = false;
        setSubmitting(false);
      }
    });

  return { form, field, onSubmit, submitting };
}
