// Whether a host names the local machine's loopback: what a probe's host and an exec probe's
// client reach without leaving the pod (or, from the kubelet, the node).
import { createRequire } from 'node:module';
import type * as Net from 'node:net';

let net: typeof Net | undefined;
let loopback: Net.BlockList | undefined;

/**
 * node:net, loaded when a host is first asked about: most lints name none. Loading it, with the
 * sockets process.stdout and process.stderr are on pipes (which src/cli/process-output.ts no longer
 * makes unless needed), cost a small lint about 4 of its 48 ms. Node 22.0–22.2 have no
 * process.getBuiltinModule.
 */
function netModule(): typeof Net {
  return (net ??= process.getBuiltinModule?.('node:net') ?? (createRequire(import.meta.url)('node:net') as typeof Net));
}

/** 127.0.0.0/8 and ::1; BlockList also finds an IPv4-mapped address in them, written dotted or in hex (::ffff:7f00:1). */
function loopbackAddresses(): Net.BlockList {
  if (loopback === undefined) {
    loopback = new (netModule().BlockList)();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
  }
  return loopback;
}

/** 4 or 6 for an IP address written as one (no brackets), 0 for anything else (node:net's isIP). */
export function ipFamily(host: string): number {
  return netModule().isIP(host);
}

/** The host without the brackets of an IPv6 literal. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** localhost (with or without the root's trailing dot), or an address in loopbackAddresses(), in any spelling. */
export function isLoopback(host: string): boolean {
  const name = unbracket(host.toLowerCase());
  if (name === 'localhost' || name === 'localhost.') return true;
  const family = ipFamily(name);
  // Stryker disable next-line ConditionalExpression: BlockList.check answers false for a name too; the test says why it is asked.
  return family !== 0 && loopbackAddresses().check(name, family === 4 ? 'ipv4' : 'ipv6');
}
