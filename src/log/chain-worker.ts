import { chainLinks, type ChainCheckData } from './chain.js';

const { workerData } = process.getBuiltinModule('node:worker_threads');

/*
 * The worker thread of startChainCheck (chain.ts): walks the checksum chain of the log
 * bytes it shares with the reader, and answers in the shared words (a
 * failure too, so the reader never waits on a worker that died).
 */

const { buffer, offset, length, previous, answer } = workerData as ChainCheckData;
chainLinks(Buffer.from(buffer, offset, length), previous, new Int32Array(answer));
