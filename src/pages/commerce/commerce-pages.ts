import type { ComponentType } from 'react';

/** Bill, order, licence and order-demand pages by route path, spread into src/router/pages.ts. */
export const commercePages: Readonly<Record<string, ComponentType>> = {};
