export { run, type CliIO } from './run.js';
export { HELP } from './help.js';
export { writePolicyReports } from './policy-commands.js';
