export { run, type CliIO } from './run.js';
export { HELP } from './help.js';
