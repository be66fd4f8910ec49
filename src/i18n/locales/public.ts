// Texts of the public pages (product guide, sign-in hand-off, shared order demand).
export const publicEn = {
  contents: 'Contents',
  signIn: 'Sign in',
  openConsole: 'Open the console',
  redirecting: 'Taking you to the console…',
  demandMissingTitle: 'This link is incomplete',
  demandMissing: 'An order demand is opened from the share link its owner sends you. Ask for the link again and open it in full.',
  demandInvalidTitle: 'This link is not valid',
  demandInvalid: 'The share link is wrong, was replaced, or the order demand was deleted. Ask its owner for a new link.',
  checking: 'Opening the order demand…',
};
