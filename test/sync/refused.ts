import { expect } from 'vitest';
import { SyncInputError } from '../../src/sync/index.js';

/**
 * The refusal `read` throws, as every reader's must be: a SyncInputError of
 * one line (no line or paragraph break), naming `file` first when given.
 */
export function refusalOf(read: () => unknown, file?: string): string {
  let caught: unknown;
  try {
    read();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'refused').toBeInstanceOf(SyncInputError);
  const message = (caught as Error).message;
  expect(message, 'one line').not.toMatch(/[\n\r\u2028\u2029]/);
  if (file !== undefined) expect(message.startsWith(`${file}: `), message).toBe(true);
  return message;
}
