/*
 * Everything gapflow serves (`serve`, `watch --port`, `inspect`) answers
 * only through these rules: on loopback, loopback Host names and pages from
 * its own address; elsewhere, said once at start. And a feed's viewers only
 * receive: what they send is never passed on.
 */
export { exposureNotice, isLoopback, loopbackHosts, refusal, type AskingHeaders, type Bound, type Refusal } from './origin.js';
export { boundOf, refuseForeignRequest, refuseForeignUpgrade } from './guard.js';
export { Backlog, BACKLOG_BYTES, BACKLOG_MESSAGES, type Held } from './backlog.js';
export { broadcastServer, VIEWER_BEHIND_BYTES, VIEWER_MESSAGE_BYTES, type Broadcast, type BroadcastOptions } from './broadcast.js';
