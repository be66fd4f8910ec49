import { Button, Group } from '@mantine/core';
import type React from 'react';
import { useTranslation } from 'react-i18next';
import { FORM_ACTION, SECONDARY_SUBMIT } from './use-console-form.ts';

interface Props {
  /** The form's `submitting` (from useConsoleForm): the submit button shows it and takes no second click. */
  readonly submitting: boolean;
  /** Shows a Cancel button left of the submit button (dialogs); page forms have none. */
  readonly onCancel?: () => void;
  /** The submit button's text; "Confirm" when not given. */
  readonly submitLabel?: string;
  /** The cancel button's text; "Cancel" when not given. */
  readonly cancelLabel?: string;
  readonly submitTestId?: string;
  readonly disabled?: boolean;
  /** A second submit button left of the main one (e.g. "Save" as a draft beside "Submit"); the handler gets `secondary`. */
  readonly secondary?: { readonly label: string; readonly testId?: string };
  /** Dialogs put their buttons on the right; a form on a page keeps them under its fields on the left. */
  readonly align?: 'end' | 'start';
}

// A field's blur check must not run when one of these buttons is pressed: an error appearing (or vanishing)
// between mouse-down and mouse-up moves the buttons and the click lands on nothing. use-console-form skips
// a blur towards a button marked FORM_ACTION; Safari does not focus a clicked button (the blur would have
// no relatedTarget), so the button takes focus itself on mouse-down. Keeping the focus in the field instead
// would only move the problem: the next click elsewhere would check the field (empty after a reset).
const focusSelf = (e: React.MouseEvent<HTMLButtonElement>) => e.currentTarget.focus();
const action = { [FORM_ACTION]: '', onMouseDown: focusSelf };

/** The one footer of the console's forms: an optional Cancel and the submit button with the form's loading state. */
export function FormActions({ submitting, onCancel, submitLabel, cancelLabel, submitTestId, disabled, secondary, align = 'end' }: Props) {
  const { t } = useTranslation();
  return (
    <Group justify={align === 'end' ? 'flex-end' : 'flex-start'}>
      {onCancel && (
        <Button variant="default" {...action} onClick={onCancel}>
          {cancelLabel ?? t('device.cancel')}
        </Button>
      )}
      {secondary && (
        <Button type="submit" variant="default" value={SECONDARY_SUBMIT} disabled={submitting || disabled} {...action} data-testid={secondary.testId}>
          {secondary.label}
        </Button>
      )}
      <Button type="submit" loading={submitting} disabled={disabled} {...action} data-testid={submitTestId}>
        {submitLabel ?? t('device.confirm')}
      </Button>
    </Group>
  );
}
