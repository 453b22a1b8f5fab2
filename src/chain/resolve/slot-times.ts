// Block times of the slots landed successes are decided in (docs/lake.md "Version 2"): a status
// gives the slot, `getBlockTime` the slot's time, asked once per slot and remembered. Thousands of
// attempts land in each slot of a busy instance (400 ms), so this costs a call per slot, not per
// attempt.

import { LruMap } from "../../shared/lru-map";
import type { RpcClient } from "../rpc";
import { blockTimes } from "./chain-reads";

/** Slots remembered: well over the slots a run's attempts land in. */
const MAX_SLOTS = 20_000;

export class SlotTimes {
  private readonly known = new LruMap<number, number | null>(MAX_SLOTS);

  /** Unix ms of each slot (null where the node has no time for it), asking the chain for slots not known yet. */
  async of(rpc: RpcClient, slots: Iterable<number>, perRequest: number): Promise<Map<number, number | null>> {
    const wanted = [...new Set(slots)];
    const missing = wanted.filter((slot) => !this.known.has(slot));
    if (missing.length > 0) {
      const fetched = await blockTimes(rpc, missing, perRequest);
      for (const [slot, seconds] of fetched) this.remember(slot, seconds === null ? null : seconds * 1000);
    }
    return new Map(wanted.map((slot) => [slot, this.known.get(slot) ?? null]));
  }

  /** A slot's time learned elsewhere (a fetched transaction carries its block time). */
  remember(slot: number, ms: number | null): void {
    this.known.set(slot, ms);
  }
}
