// `--fetch-private`: the non-public networks the server's operator lets handlers `fetch()` when
// their app lists the address. An app's svc.json chooses origins within it; it cannot widen it.

import { BlockList, isIP } from 'node:net';

/**
 * Non-public networks an address listed in `fetch.allow` may be in: every one (`'any'`), or
 * these CIDR blocks (`'127.0.0.0/8'`, `'fd00::/8'`; `[]` is none). A public address needs no
 * entry, and a host *name* that resolves to a non-public address is refused whatever this says.
 * Default: none with `--tenants` (a tenant is not the operator: its svc.json must not reach the
 * server's own port, the host's network or the cloud metadata service), any without (the one
 * app's owner runs the server).
 */
export type FetchPrivate = 'any' | readonly string[];

/** The default for a server with tenants or with one app. */
export const defaultFetchPrivate = (tenants: boolean): FetchPrivate => (tenants ? [] : 'any');

/**
 * The value of `--fetch-private` / `SVC_FETCH_PRIVATE`: `none`, `any`, or comma-separated CIDR
 * blocks (a bare address is that one address). Throws an Error that says what is wrong.
 */
export function parseFetchPrivate(raw: string): FetchPrivate {
  const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const example = 'none, any, or CIDR blocks such as 10.0.0.0/8,fd00::/8';
  if (items.length === 0) throw new Error(`--fetch-private takes ${example}, not "${raw}"`);
  if (items.length === 1 && items[0] === 'any') return 'any';
  if (items.length === 1 && items[0] === 'none') return [];
  if (items.includes('any') || items.includes('none')) throw new Error(`--fetch-private: none and any stand alone, not in a list ("${raw}")`);
  return items.map(block);
}

/** One CIDR block, as `network/prefix` in the address's usual spelling. */
function block(text: string): string {
  const m = /^([^/%]+)(?:\/(\d{1,3}))?$/.exec(text);
  const family = m ? isIP(m[1]!) : 0;
  if (!m || family === 0) throw new Error(`--fetch-private: "${text}" is not a CIDR block such as 10.0.0.0/8 or fd00::/8 (or an IP address)`);
  const bits = family === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? bits : Number(m[2]);
  if (prefix > bits) throw new Error(`--fetch-private: "${text}": the prefix of an IPv${family} block is at most /${bits}`);
  const value = toNumber(m[1]!, family);
  const hostBits = (1n << BigInt(bits - prefix)) - 1n;
  // 10.1.2.3/8 is most likely a typo for one address or for 10.1.0.0/16: say which network it is.
  if ((value & hostBits) !== 0n) {
    throw new Error(`--fetch-private: "${text}" has address bits past its /${prefix}: write the network, ${fromNumber(value & ~hostBits, family)}/${prefix}, or the one address, ${m[1]}`);
  }
  return `${fromNumber(value, family)}/${prefix}`;
}

function toNumber(address: string, family: number): bigint {
  if (family === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
  // The WHATWG URL parser spells an IPv6 address in hex groups only (`::ffff:7f00:1`), `::` for zeros.
  const [head, tail] = new URL(`http://[${address}]`).hostname.slice(1, -1).split('::') as [string, string?];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}

function fromNumber(value: bigint, family: number): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

/** One BlockList per policy: built on first use (a Config is never changed after start-up). */
const compiled = new WeakMap<readonly string[], BlockList>();

/**
 * Whether `policy` lets a handler reach `address` (an IP address that is not public). An
 * IPv4-mapped IPv6 address (`::ffff:7f00:1`) is the IPv4 address it maps: node:net's BlockList
 * matches it against IPv4 blocks.
 */
export function fetchPrivateAllows(policy: FetchPrivate, address: string): boolean {
  if (policy === 'any') return true;
  const family = isIP(address);
  if (family === 0 || policy.length === 0) return false;
  let list = compiled.get(policy);
  if (list === undefined) {
    list = new BlockList();
    for (const b of policy) {
      const [network, prefix] = b.split('/') as [string, string];
      list.addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
    }
    compiled.set(policy, list);
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
