// Whether a host names the local machine's loopback: what a probe's host and an exec probe's
// client reach without leaving the pod (or, from the kubelet, the node).
import { BlockList, isIP } from 'node:net';

/** 127.0.0.0/8 and ::1; BlockList also finds an IPv4-mapped address in them, written dotted or in hex (::ffff:7f00:1). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The host without the brackets of an IPv6 literal. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** localhost (with or without the root's trailing dot), or an address in LOOPBACK, in any spelling. */
export function isLoopback(host: string): boolean {
  const name = unbracket(host.toLowerCase());
  if (name === 'localhost' || name === 'localhost.') return true;
  const family = isIP(name);
  // Stryker disable next-line ConditionalExpression: BlockList.check answers false for a name too; the test says why it is asked.
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}
