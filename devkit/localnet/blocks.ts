// Block production model of the local chain.
//
// One block per slot (no skipped slots), but slot and block height start apart (slot = height +
// `slotOffset`) so code that confuses the two fails here as it would on mainnet. The current block is
// the "working bank": transactions land in it, getSlot/getBlockHeight report it, and
// getLatestBlockhash returns its hash with lastValidBlockHeight = height + 150. A blockhash is valid
// while currentHeight ≤ itsHeight + 150 (agave's MAX_PROCESSING_AGE). Blocks advance when the owner
// calls produce(): on a timer (`blockTimeMs`) and/or by hand (txray_advanceBlocks) — nothing here
// reads the wall clock except through the injected `now`.

export const MAX_PROCESSING_AGE = 150;
/** Statuses stay in the (non-history) status cache this many slots, like agave's ~300-slot cache. */
export const STATUS_CACHE_SLOTS = 300;
export const SLOTS_PER_EPOCH = 432_000;

export interface Block {
  slot: number;
  height: number;
  blockhash: string;
  parentSlot: number;
  previousBlockhash: string;
  /** Wall-clock ms at which the block started. */
  timeMs: number;
}

export interface BlockClockOptions {
  initialSlot: number;
  initialBlockHeight: number;
  genesisBlockhash: string;
  /** Derives the next block's hash from the previous one (LiteSVM's expireBlockhash chain). */
  nextBlockhash: () => string;
  now: () => number;
}

export class BlockClock {
  private current: Block;
  /** blockhash → height, for the last STATUS_CACHE_SLOTS blocks. */
  private readonly hashHeights = new Map<string, number>();
  private readonly hashOrder: string[] = [];
  /** Start time (ms) and hash of every block, indexed by slot − firstSlot (slots are contiguous). */
  private readonly times: number[] = [];
  private readonly hashes: string[] = [];
  private readonly firstSlot: number;
  private readonly listeners = new Set<(block: Block) => void>();

  constructor(private readonly options: BlockClockOptions) {
    this.firstSlot = options.initialSlot;
    this.current = {
      slot: options.initialSlot,
      height: options.initialBlockHeight,
      blockhash: options.genesisBlockhash,
      parentSlot: Math.max(0, options.initialSlot - 1),
      previousBlockhash: options.genesisBlockhash,
      timeMs: options.now(),
    };
    this.remember(this.current);
  }

  get slot(): number {
    return this.current.slot;
  }
  get blockHeight(): number {
    return this.current.height;
  }
  get blockhash(): string {
    return this.current.blockhash;
  }
  get latest(): Block {
    return this.current;
  }
  get lastValidBlockHeight(): number {
    return this.current.height + MAX_PROCESSING_AGE;
  }

  /** Seals the current block and starts `count` new ones; returns the new current block. */
  produce(count = 1): Block {
    for (let i = 0; i < count; i++) {
      const prev = this.current;
      this.current = {
        slot: prev.slot + 1,
        height: prev.height + 1,
        blockhash: this.options.nextBlockhash(),
        parentSlot: prev.slot,
        previousBlockhash: prev.blockhash,
        timeMs: this.options.now(),
      };
      this.remember(this.current);
      for (const listener of this.listeners) listener(this.current);
    }
    return this.current;
  }

  onBlock(listener: (block: Block) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Height of the block that issued `blockhash`, when still in the cache. */
  heightOf(blockhash: string): number | undefined {
    return this.hashHeights.get(blockhash);
  }

  isBlockhashValid(blockhash: string): boolean {
    const height = this.hashHeights.get(blockhash);
    return height !== undefined && this.current.height - height <= MAX_PROCESSING_AGE;
  }

  /** Start time (ms) of `slot`, or undefined for a slot this chain never produced. */
  timeOfSlot(slot: number): number | undefined {
    if (!Number.isInteger(slot)) return undefined;
    return this.times[slot - this.firstSlot];
  }

  /** Hash of the block at `slot`, or undefined for a slot this chain never produced. */
  blockhashOfSlot(slot: number): string | undefined {
    if (!Number.isInteger(slot)) return undefined;
    return this.hashes[slot - this.firstSlot];
  }

  get firstAvailableSlot(): number {
    return this.firstSlot;
  }

  private remember(block: Block): void {
    this.times[block.slot - this.firstSlot] = block.timeMs;
    this.hashes[block.slot - this.firstSlot] = block.blockhash;
    this.hashHeights.set(block.blockhash, block.height);
    this.hashOrder.push(block.blockhash);
    while (this.hashOrder.length > STATUS_CACHE_SLOTS) {
      const old = this.hashOrder.shift()!;
      this.hashHeights.delete(old);
    }
  }
}
