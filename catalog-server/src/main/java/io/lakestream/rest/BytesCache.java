package io.lakestream.rest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Serialized responses by a key that names immutable content (an ETag), least recently used first
 * out. Two threads may compute the same entry at once; both results are equal, so the race costs
 * work, never correctness. Thread safe.
 */
final class BytesCache {
  private final Map<String, byte[]> entries;

  BytesCache(int capacity) {
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > capacity;
          }
        };
  }

  byte[] get(String key, Supplier<byte[]> compute) {
    synchronized (entries) {
      byte[] cached = entries.get(key);
      if (cached != null) {
        return cached;
      }
    }
    byte[] computed = compute.get();
    synchronized (entries) {
      entries.put(key, computed);
    }
    return computed;
  }
}
