/** One import point for the store's schemas and types. */
export * from './messages';
export * from './entities';
export * from './functions';
export * from './events';
