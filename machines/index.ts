export * from './convergence.js';
