package io.lakestream.rest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Serialized responses by a key that names immutable content (a metadata file location, an ETag),
 * least recently used first out. Two threads may compute the same entry at once; both results are
 * equal, so the race costs work, never correctness. Thread safe.
 */
final class ResponseCache<K, V> {
  private final Map<K, V> entries;

  ResponseCache(int capacity) {
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The entry, if cached; never computes. */
  Optional<V> getIfPresent(K key) {
    synchronized (entries) {
      return Optional.ofNullable(entries.get(key));
    }
  }

  V get(K key, Supplier<V> compute) {
    synchronized (entries) {
      V cached = entries.get(key);
      if (cached != null) {
        return cached;
      }
    }
    V computed = compute.get();
    synchronized (entries) {
      entries.put(key, computed);
    }
    return computed;
  }
}
