// A clock for tests that runs with the wall clock and can be moved forward: a test that needs time to
// pass (an answer reused for a second, an attempt due again later) advances it instead of sleeping.
// It stays close to the real time, so timestamps written through it still read as "now" elsewhere.

export type AdvancingClock = (() => number) & {
  /** Moves this clock `ms` ahead of the wall clock (on top of any earlier advance). */
  advance(ms: number): void;
};

export function advancingClock(): AdvancingClock {
  let offset = 0;
  return Object.assign(() => Date.now() + offset, {
    advance(ms: number) {
      offset += ms;
    },
  });
}
