// Texts of the shared building blocks (DataTable, the form pattern), in English; the Chinese are in kit.zh.ts.
export const kitEn = {
  table: {
    loading: 'Loading…',
    empty: 'No data',
    error: 'Data loading failed, please refresh the page',
    retry: 'Retry',
    columns: 'Columns',
    actions: 'Actions',
    selectedOnPage: '{{count}} selected on this page.',
    selectAllMatching: 'Select all {{total}} matching',
    allMatchingSelected: 'All {{total}} matching rows are selected.',
    clearSelection: 'Clear selection',
    selectRow: 'Select row',
    selectPage: 'Select this page',
    total: '{{total}} in all',
  },
  form: {
    required: 'This item cannot be empty!',
    tooLong: 'At most {{max}} characters',
    noEmoji: 'Emoji are not allowed',
    noChinese: 'Chinese characters are not allowed',
    email: 'Enter a valid email address',
    phone: 'Please enter a correct 11-digit mobile phone number',
    integer: 'Enter a whole number from {{min}} to {{max}}',
  },
};
