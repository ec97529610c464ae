/**
 * The session's write commands, by name: the bin (launch.ts) runs a call
 * whose first word is one of them from the write bundle, knowing no more of
 * the table than this. Their entries in the table are WRITE_ENTRIES, in
 * this order (table.test.ts holds the two together).
 */
export const WRITE_COMMANDS: readonly string[] = ['init', 'gap', 'round', 'decide'];
