import { proxy } from 'valtio';

/** Whether the own-password dialog is open (opened from the user menu or the 30-day reminder). */
export const passwordDialog = proxy({ opened: false });

export function openPasswordDialog(): void {
  passwordDialog.opened = true;
}

export function closePasswordDialog(): void {
  passwordDialog.opened = false;
}
