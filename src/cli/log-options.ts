import type { WriteOptions } from '../session/index.js';
import { wholeNumber } from './args.js';

/** The options every command that appends to the log takes. */
export const WRITE_OPTIONS = {
  'expect-seq': { type: 'string' },
  'event-id': { type: 'string' },
} as const;

/** `--expect-seq N` (refuse unless the log ends at seq N) and `--event-id ID` (a retry appends nothing twice). */
export function writeOptions(values: { 'expect-seq'?: string | undefined; 'event-id'?: string | undefined }): WriteOptions {
  return { expectSeq: wholeNumber('expect-seq', values['expect-seq']), eventId: values['event-id'] };
}
