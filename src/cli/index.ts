export { run, COMMANDS, type CliIO } from './run.js';
export { runBin } from './bin.js';
export { COMMAND_LOADERS } from './commands.js';
export { HELP } from './help.js';
export { writePolicyReports } from './policy-commands.js';
export { ENTER_SCREEN, LEAVE_SCREEN, watch, type Terminal } from './watch.js';
