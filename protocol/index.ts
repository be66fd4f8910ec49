// Public surface of the protocol engine. Everything outside protocol/ imports from here.
export * from './catalogue/commands.ts';
export * from './catalogue/enums.ts';
export * from './catalogue/labels.ts';
export * from './catalogue/permissions.ts';
export * from './envelope.ts';
export * from './errors.ts';
export * from './close-codes.ts';
export * from './clock.ts';
export * from './transport.ts';
export * from './codec.ts';
export * from './backoff.ts';
export * from './correlator.ts';
export * from './connection.ts';
export * from './engine.ts';
