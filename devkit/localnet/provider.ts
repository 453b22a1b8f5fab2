// A "provider": one RPC endpoint's send behaviour. Every endpoint serves the same chain, but each
// decides for itself whether a transaction that passed (or skipped) preflight is forwarded to the
// leader. With probability `dropRate` it answers the signature and never executes the transaction,
// like a provider that does not forward; the draw comes from a seeded generator, so a given seed
// drops the same sends every run.

import type { ExecutionResult, LocalChain } from "./chain.ts";
import { mulberry32, type Random } from "./prng.ts";

export interface ProviderStats {
  /** sendTransaction calls that decoded. */
  received: number;
  /** Rejected in preflight (-32002 / -32003). */
  preflightFailed: number;
  /** Handed to the chain (landed or not). */
  forwarded: number;
  /** Answered with a signature but never executed. */
  dropped: number;
}

export interface ProviderInfo {
  label: string;
  url: string;
  dropRate: number;
  stats: ProviderStats;
}

export type ForwardOutcome = { dropped: true } | { dropped: false; result: ExecutionResult };

export class Provider {
  readonly stats: ProviderStats = { received: 0, preflightFailed: 0, forwarded: 0, dropped: 0 };
  private random: Random;
  private rate: number;

  constructor(
    readonly label: string,
    private readonly chain: LocalChain,
    dropRate: number,
    seed: number,
  ) {
    this.rate = checkRate(dropRate);
    this.random = mulberry32(seed);
  }

  get dropRate(): number {
    return this.rate;
  }

  setDropRate(rate: number, seed?: number): void {
    this.rate = checkRate(rate);
    if (seed !== undefined) this.random = mulberry32(seed);
  }

  /** Forwards a transaction to the chain unless this provider drops it. */
  forward(bytes: Uint8Array): ForwardOutcome {
    // Always draw, so the drop pattern depends only on the seed and the number of sends.
    const draw = this.random();
    if (draw < this.rate) {
      this.stats.dropped++;
      return { dropped: true };
    }
    this.stats.forwarded++;
    return { dropped: false, result: this.chain.submit(bytes) };
  }
}

function checkRate(rate: number): number {
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new RangeError(`dropRate must be within [0, 1], got ${rate}`);
  return rate;
}
