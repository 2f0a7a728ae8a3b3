import { networkInterfaces } from 'node:os';

/**
 * "::" — every IPv6 and (dual stack) IPv4 address — where this host has IPv6, else "0.0.0.0". In a
 * pod on an IPv4-only cluster "::" can fail to bind when the kernel has IPv6 turned off.
 */
export function defaultHost(): string {
  const hasIpv6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.family === 'IPv6'));
  return hasIpv6 ? '::' : '0.0.0.0';
}
