// The floating parts of the shell (floating-ui, Popover, Combobox, Transition, focus trap, remove-scroll):
// one chunk, fetched on the first interaction with the shell (./deferred.tsx; issue 21).
export { Menu, Select, Tooltip } from '@mantine/core';
