// A Map that keeps at most `capacity` entries, least recently used going first: the bound the
// server's least-recently-used caches share (answers of a serving version, a wallet window's
// counts, recent evidence, slot times), so that none grows with what a client chooses to ask.

export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`LruMap capacity must be at least 1, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The entry's value, which becomes the most recently used; undefined when it is not kept. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps the value as the most recently used, dropping the least recently used beyond capacity. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
