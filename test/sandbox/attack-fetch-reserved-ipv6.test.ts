// IPv6 blocks the IANA special-purpose registry marks not globally reachable, whose IPv4
// counterparts fetch() already refuses: benchmarking 2001:2::/48 (as 198.18.0.0/15),
// documentation 3fff::/20 (RFC 9637, as 2001:db8::/32 and 192.0.2.0/24), the deprecated ORCHID
// 2001:10::/28, and SRv6 segment identifiers 5f00::/16 (RFC 9602),
// which address a network's own routers. README (App settings): a host is refused "if any of its
// addresses is loopback, private, link-local, carrier-grade NAT, multicast or reserved".

import t from 'tap';
import { isPublicAddress } from '../../src/sandbox/ops/fetch.ts';

t.test('reserved IPv6 blocks are not public', async (t) => {
  for (const a of ['2001:2::1', '2001:2:0:ffff::1', '3fff::1', '3fff:fff:ffff::1', '2001:10::1', '2001:1f:ffff::1', '5f00::1', '5f00:ffff::1']) {
    t.notOk(isPublicAddress(a), a);
  }
});

t.test('their neighbours stay public', async (t) => {
  for (const a of ['2001:3::1', '2001:30::1', '3ffe:ffff::1', '4000::1', '5f01::1', '2001:4860:4860::8888']) t.ok(isPublicAddress(a), a);
});
