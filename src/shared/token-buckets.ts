// Token buckets, one per key (ingest, counted in envelopes), per client (public reads, counted in
// requests) or per client asking `why` to look a signature up on the chain (counted in look-ups).
// In memory: limits protect this process; a multi-node deployment limits per node.
// Answers carry the IETF RateLimit-* headers; a refusal says when to retry.
//
// Memory is bounded without forgetting anyone who is being limited: the table is kept in order of
// last use, and a new id may only take the place of an entry that has refilled (forgetting a full
// bucket changes nothing: a new one starts full). When the oldest entries are all still draining,
// new ids share one overflow bucket, so a flood of fresh ids is limited as one client and never
// resets the others.

export type RateDecision = { allowed: boolean; headers: Record<string, string>; retryAfterSeconds: number };

type Bucket = { tokens: number; updatedAt: number };

/** Entries a table holds at most (about 100 bytes each). */
export const DEFAULT_MAX_BUCKETS = 100_000;
/** Oldest entries examined for eviction when a new id arrives at a full table: a constant cost per request. */
const EVICTION_SCAN = 8;

export class TokenBuckets {
  private buckets = new Map<string, Bucket>();
  private overflow: Bucket | null = null;
  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
    private readonly clock: () => number = Date.now,
    private readonly maxBuckets = DEFAULT_MAX_BUCKETS,
  ) {}

  /** Ids held in the table (the overflow bucket not counted). */
  get size(): number {
    return this.buckets.size;
  }

  take(id: string, cost = 1): RateDecision {
    const now = this.clock();
    const bucket = this.bucketFor(id, now);
    bucket.tokens = this.refilled(bucket, now);
    bucket.updatedAt = now;
    const allowed = cost <= bucket.tokens;
    if (allowed) bucket.tokens -= cost;
    const missing = allowed ? 0 : Math.min(cost, this.capacity) - bucket.tokens;
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil(missing / this.refillPerSecond));
    const resetSeconds = Math.ceil((this.capacity - bucket.tokens) / this.refillPerSecond);
    return {
      allowed,
      retryAfterSeconds,
      headers: {
        "ratelimit-limit": String(this.capacity),
        "ratelimit-remaining": String(Math.max(0, Math.floor(bucket.tokens))),
        "ratelimit-reset": String(resetSeconds),
        ...(allowed ? {} : { "retry-after": String(retryAfterSeconds) }),
      },
    };
  }

  /**
   * Takes tokens for work found out only once done (a request's measured cost beyond its price):
   * the bucket may go into debt, down to minus its capacity, and later requests wait for it.
   */
  charge(id: string, cost: number): void {
    if (!(cost > 0)) return; // most requests: nothing measured beyond their price
    const bucket = this.buckets.get(id) ?? this.overflow;
    if (!bucket) return;
    const now = this.clock();
    bucket.tokens = Math.max(-this.capacity, this.refilled(bucket, now) - cost);
    bucket.updatedAt = now;
  }

  /** Gives back tokens a take spent on work that did not happen (never above the capacity). */
  refund(id: string, cost = 1): void {
    const bucket = this.buckets.get(id) ?? this.overflow;
    if (bucket) bucket.tokens = Math.min(this.capacity, bucket.tokens + cost);
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.refillPerSecond);
  }

  private bucketFor(id: string, now: number): Bucket {
    const known = this.buckets.get(id);
    if (known) {
      // Moved to the end: the Map's order is the order of last use.
      this.buckets.delete(id);
      this.buckets.set(id, known);
      return known;
    }
    if (this.buckets.size >= this.maxBuckets) this.evictRefilled(now);
    if (this.buckets.size >= this.maxBuckets) {
      this.overflow ??= { tokens: this.capacity, updatedAt: now };
      return this.overflow;
    }
    const fresh = { tokens: this.capacity, updatedAt: now };
    this.buckets.set(id, fresh);
    return fresh;
  }

  /** Forgets the refilled ones among the least recently used entries. */
  private evictRefilled(now: number): void {
    let examined = 0;
    for (const [id, bucket] of this.buckets) {
      if (examined++ >= EVICTION_SCAN) break;
      if (this.refilled(bucket, now) >= this.capacity) this.buckets.delete(id);
    }
  }
}
