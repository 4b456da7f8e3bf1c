/** A small map that forgets the least recently used key past its size. */
export class LRU<K, V> {
  private readonly items = new Map<K, V>();

  constructor(private readonly size: number) {
    if (size < 1) throw new RangeError(`cache size must be at least 1, got ${size}`);
  }

  get(key: K): V | undefined {
    const value = this.items.get(key);
    if (value !== undefined) {
      this.items.delete(key);
      this.items.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    while (this.items.size > this.size) {
      const oldest = this.items.keys().next();
      if (oldest.done === true) break;
      this.items.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.items.delete(key);
  }
}
