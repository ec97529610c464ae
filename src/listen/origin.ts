const { isIPv4, isIPv6 } = process.getBuiltinModule('node:net');

/*
 * Who a listener answers. A server on loopback can still be reached by a web
 * page: through a name the page's site controls that resolves to 127.0.0.1
 * (DNS rebinding: the request then carries that name as its Host), or by a
 * page on another origin opening a WebSocket (which browsers let through,
 * saying where the page came from in Origin). So on loopback a request must
 * name the server by a loopback name, and a browser page must come from it.
 */

/** Where a server is bound, as `server.address()` says it. */
export interface Bound {
  address: string;
  port: number;
}

/** Why a request is not answered: the HTTP status to refuse it with, and one line saying why. */
export interface Refusal {
  status: 403 | 421;
  reason: string;
}

/** The headers a refusal is decided from (node's lower-cased request headers). */
export interface AskingHeaders {
  host?: string | undefined;
  origin?: string | undefined;
}

/** True for an address only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (any spelling, bracketed or not). */
export function isLoopback(address: string): boolean {
  const bare = address.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (!isIPv6(bare)) return false;
  // The URL parser writes an IPv6 address one way: 0:0:0:0:0:0:0:1 is [::1], ::ffff:127.0.0.1 is [::ffff:7f00:1].
  const written = new URL(`http://[${bare}]/`).hostname;
  return written === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(written);
}

/** `address` as it is written in a Host header or a URL: an IPv6 address in brackets. */
function hostLiteral(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/**
 * The Host values a loopback server at `bound` answers: `127.0.0.1`,
 * `localhost`, `[::1]` and the bound address itself, each with the port. A
 * browser leaves the port out only when it is http's default, so the bare
 * names are taken only on port 80.
 */
export function loopbackHosts(bound: Bound): ReadonlySet<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', hostLiteral(bound.address.toLowerCase())]);
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${bound.port}`);
    if (bound.port === 80) hosts.add(name);
  }
  return hosts;
}

/**
 * Why the server at `bound` must not answer a request with these headers,
 * or null. On loopback: the Host must be one of `loopbackHosts` (else 421),
 * and an Origin, when there is one, must be `http://` and one of them too
 * (else 403). Elsewhere there is no name to check the Host against, so an
 * Origin must be the Host it asked for (`http://` or `https://`, for a proxy
 * that adds TLS). A request without Origin (curl, a script, a same-origin
 * GET) is not a page on another site and is answered.
 */
export function refusal(headers: AskingHeaders, bound: Bound): Refusal | null {
  const host = headers.host?.toLowerCase();
  const origin = headers.origin?.toLowerCase();
  if (isLoopback(bound.address)) {
    const hosts = loopbackHosts(bound);
    if (host === undefined || !hosts.has(host))
      return { status: 421, reason: `this server answers only to its loopback names (${[...hosts][0]}), not Host ${JSON.stringify(headers.host ?? '')}` };
    if (origin !== undefined && !(origin.startsWith('http://') && hosts.has(origin.slice('http://'.length)))) return foreign(headers.origin!);
    return null;
  }
  if (origin !== undefined && (host === undefined || (origin !== `http://${host}` && origin !== `https://${host}`))) return foreign(headers.origin!);
  return null;
}

function foreign(origin: string): Refusal {
  return { status: 403, reason: `a page from ${JSON.stringify(origin)} may not read this server: only its own pages may` };
}

/**
 * The one line a server bound off loopback says at start (null on
 * loopback): what it then lets in, since its Host check is off.
 */
export function exposureNotice(bound: Bound): string | null {
  if (isLoopback(bound.address)) return null;
  return `listening on ${bound.address}, not loopback only: whoever can reach it reads every session; it answers any Host name, and a browser page only from the address it asked for (Origin http://<Host> or https://<Host>)`;
}
