package io.lakestream.rest;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * The compressions a large answer may be sent in, best first. zstd is preferred when a client
 * accepts it (Iceberg's HTTP client does whenever zstd-jni is on its class path): at its fastest
 * level it compresses JSON smaller than gzip and both ends spend less CPU on it.
 */
enum ContentEncoding {
  ZSTD("zstd"),
  GZIP("gzip"),
  IDENTITY("identity");

  private final String token;

  ContentEncoding(String token) {
    this.token = token;
  }

  /** The {@code Content-Encoding} value. */
  String token() {
    return token;
  }

  /**
   * The best encoding {@code acceptEncoding} allows: a coding counts when it is named with a
   * q-value above zero; {@code *} stands for gzip, which every client decodes. Null or empty
   * accepts only identity.
   */
  static ContentEncoding choose(String acceptEncoding) {
    if (acceptEncoding == null || acceptEncoding.isBlank()) {
      return IDENTITY;
    }
    boolean zstd = false;
    boolean gzip = false;
    boolean any = false;
    for (String item : acceptEncoding.toLowerCase(Locale.ROOT).split(",")) {
      String[] parts = item.split(";");
      String coding = parts[0].trim();
      boolean accepted = true;
      for (int i = 1; i < parts.length; i++) {
        String parameter = parts[i].trim();
        if (parameter.startsWith("q=")) {
          accepted = qualityAboveZero(parameter.substring(2).trim());
        }
      }
      switch (coding) {
        case "zstd" -> zstd = accepted;
        case "gzip", "x-gzip" -> gzip = gzip || accepted;
        case "*" -> any = accepted;
        default -> {}
      }
    }
    return zstd ? ZSTD : gzip || any ? GZIP : IDENTITY;
  }

  private static boolean qualityAboveZero(String quality) {
    try {
      return Double.parseDouble(quality) > 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** {@code body} in this encoding, at the fastest level. */
  byte[] encode(byte[] body) {
    return switch (this) {
      case ZSTD -> Zstd.compress(body, 1);
      case GZIP -> gzip(body);
      case IDENTITY -> body;
    };
  }

  /**
   * The ETag of the encoded body: a strong ETag names one representation, so a compressed body's
   * ETag carries the encoding as a suffix inside the quotes.
   */
  String etag(String etag) {
    if (this == IDENTITY || !etag.endsWith("\"")) {
      return etag;
    }
    return etag.substring(0, etag.length() - 1) + suffix() + "\"";
  }

  /** If-None-Match as handlers know ETags: without any encoding suffix. */
  static String withoutSuffixes(String ifNoneMatch) {
    String plain = ifNoneMatch;
    for (ContentEncoding encoding : values()) {
      if (encoding != IDENTITY) {
        plain = plain.replace(encoding.suffix() + "\"", "\"");
      }
    }
    return plain;
  }

  private String suffix() {
    return "--" + token;
  }

  private static byte[] gzip(byte[] body) {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream(body.length / 4);
    try (GZIPOutputStream out =
        new GZIPOutputStream(compressed, 8192) {
          {
            def.setLevel(Deflater.BEST_SPEED);
          }
        }) {
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return compressed.toByteArray();
  }
}
