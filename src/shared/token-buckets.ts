// Token buckets, one per key (ingest, counted in envelopes), per client IP (public reads, counted
// in requests) or per client asking `why` to look a signature up on the chain (counted in look-ups).
// In memory: limits protect this process; a multi-node deployment limits per node.
// Answers carry the IETF RateLimit-* headers; a refusal says when to retry.

export type RateDecision = { allowed: boolean; headers: Record<string, string>; retryAfterSeconds: number };

export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; updatedAt: number }>();
  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
    private readonly clock: () => number = Date.now,
  ) {}

  take(id: string, cost = 1): RateDecision {
    const now = this.clock();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      if (this.buckets.size > 100_000) this.buckets.clear(); // bound memory under a flood of new ids
      bucket = { tokens: this.capacity, updatedAt: now };
      this.buckets.set(id, bucket);
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.refillPerSecond);
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
        "ratelimit-remaining": String(Math.floor(bucket.tokens)),
        "ratelimit-reset": String(resetSeconds),
        ...(allowed ? {} : { "retry-after": String(retryAfterSeconds) }),
      },
    };
  }
}
