package io.lakestream.rest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * Keyset paging over a sorted listing. A page token is the opaque (base64url) sort key of the last
 * item of the previous page, so a page stays correct while entries are added or dropped between
 * calls: nothing is skipped that existed throughout, nothing is repeated.
 */
final class Pages {
  private Pages() {}

  /** One page of a listing and the token for the next, or null when it was the last. */
  record Page<T>(List<T> items, String nextToken) {}

  /**
   * @param sorted the whole listing, sorted by {@code key}
   * @param token the previous page's token, or null or empty for the first page
   * @param size the page size, or null for everything after the token
   */
  static <T> Page<T> page(List<T> sorted, Function<T, String> key, String token, Integer size) {
    int start = 0;
    if (token != null && !token.isEmpty()) {
      String after = decode(token);
      while (start < sorted.size() && key.apply(sorted.get(start)).compareTo(after) <= 0) {
        start++;
      }
    }
    int end = size == null ? sorted.size() : (int) Math.min(sorted.size(), (long) start + size);
    List<T> items = sorted.subList(start, end);
    String next =
        end < sorted.size() && !items.isEmpty() ? encode(key.apply(items.getLast())) : null;
    return new Page<>(new ArrayList<>(items), next);
  }

  private static String encode(String key) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String token) {
    try {
      return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Invalid pageToken: %s", token);
    }
  }
}
