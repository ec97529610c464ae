// The namespaces the package exports beside its names (src/index.ts is the package's door; this is the folder's).
export * as events from './events.js';
export * as machine from './machine.js';
export * as policies from './policies.js';
export * as render from './render.js';
