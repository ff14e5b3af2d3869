/** `npm run test:soak` sets SOAK=1: the reliability suites run their long forms. */
export const SOAK = process.env['SOAK'] === '1';

/** A seed from `name` in the environment (to replay a run), else a fresh one. */
export function seedFrom(name: string): number {
  const given = process.env[name];
  return given === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(given);
}

/** A small seeded PRNG (mulberry32): the same seed gives the same run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}
