// Generated bench data: a deterministic random source and `employees` members with varied values.

import type { MemberData } from '../src/model/types.ts';

/** A deterministic pseudo-random generator in [0, 1) (mulberry32), so every run seeds the same data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Two lower-case first names per letter: `name__startswith=<letter>` matches about 1 in 26, and
// with `born__day=5` (days 1–28) about 1 in 728 (≈14 of 10,000).
const FIRST = [
  'ada', 'alan', 'barbara', 'bjarne', 'claude', 'cynthia', 'dennis', 'donald', 'edsger', 'elena',
  'fran', 'frances', 'grace', 'guido', 'hedy', 'ivan', 'ida', 'james', 'jean', 'ken', 'katherine',
  'leslie', 'linus', 'margaret', 'mary', 'niklaus', 'noam', 'ole', 'olga', 'peter', 'radia',
  'quentin', 'quinn', 'rob', 'rosalind', 'sophie', 'shafi', 'tim', 'tony', 'ursula', 'uma',
  'vint', 'valerie', 'whitfield', 'wendy', 'xavier', 'xiao', 'yukihiro', 'yvonne', 'zoe', 'zed',
];
const LAST = ['lovelace', 'turing', 'liskov', 'hopper', 'knuth', 'dijkstra', 'ritchie', 'thompson', 'perlman', 'wirth', 'kay', 'hamilton', 'goldwasser', 'franklin', 'berners-lee'];
const WORDS = 'the of systems data query index page member store field order filter stream durable write read latency throughput model handler sandbox'.split(' ');

const pad = (n: number) => String(n).padStart(2, '0');

/** Member `i` (from 0) of a seeded collection: every field present, canonical values. */
export function employee(next: () => number, i: number): MemberData {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const first = pick(FIRST);
  const last = pick(LAST);
  const words = Array.from({ length: 8 + Math.floor(next() * 50) }, () => pick(WORDS));
  const hired = Date.UTC(2000, 0, 1) + Math.floor(next() * 25 * 365.25 * 86_400_000);
  return {
    name: `${first} ${last}`,
    email: `${first}.${last}.${i}@example.com`,
    bio: words.join(' '),
    born: `${1960 + Math.floor(next() * 44)}-${pad(1 + Math.floor(next() * 12))}-${pad(1 + Math.floor(next() * 28))}`,
    hired_at: new Date(hired).toISOString(),
    salary: Math.round((30_000 + next() * 170_000) * 100) / 100,
    level: 1 + Math.floor(next() * 10),
    active: next() < 0.9,
    badge: `B${i.toString(36).padStart(6, '0')}`,
  };
}
