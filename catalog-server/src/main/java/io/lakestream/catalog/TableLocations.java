package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * Where the tables, views and namespaces of one warehouse may keep their files: under the warehouse
 * location or under one of the configured allowed locations ({@code catalog.allowed-locations}),
 * and nowhere else.
 *
 * <p>Locations are compared in their <em>canonical</em> form ({@link #canonical}), which names what
 * the storage actually touches: {@code file:/w}, {@code file:///w}, {@code local:///w} and {@code
 * /w} are one local directory; {@code .} and {@code ..} segments, repeated and trailing slashes and
 * percent-escapes are resolved the way the local file IO resolves them, and so are symbolic links
 * of the part of a local path that exists. {@code s3a://} and {@code s3n://} are spellings of
 * {@code s3://}; object keys are taken literally, so an S3 location with an empty, {@code .} or
 * {@code ..} segment is refused rather than guessed at. Any other scheme is refused.
 *
 * <p>Immutable and thread safe.
 */
public final class TableLocations {
  private final String warehouse;
  private final List<String> allowed;

  /**
   * @param warehouseLocation the warehouse's location, allowed and the root of its namespaces'
   *     directories
   * @param allowedLocations further locations under which files may be placed; may be empty
   * @throws IllegalArgumentException if a location is not one this class understands
   */
  public TableLocations(String warehouseLocation, List<String> allowedLocations) {
    requireNonNull(warehouseLocation, "warehouseLocation is null");
    requireNonNull(allowedLocations, "allowedLocations is null");
    this.warehouse = canonical(warehouseLocation);
    List<String> roots = new ArrayList<>();
    roots.add(warehouse);
    for (String location : allowedLocations) {
      roots.add(canonical(location));
    }
    this.allowed = List.copyOf(roots);
  }

  /** The canonical warehouse location. */
  public String warehouse() {
    return warehouse;
  }

  /** The canonical locations under which files may be placed, the warehouse's first. */
  public List<String> allowed() {
    return allowed;
  }

  /**
   * The directory of a namespace in the warehouse: the warehouse location followed by one segment
   * per level. Register accepts only metadata under it, and it is the namespace's {@code location}
   * unless one is set.
   */
  public String namespaceDirectory(Namespace namespace) {
    StringBuilder path = new StringBuilder(warehouse);
    for (String level : namespace.levels()) {
      if (path.charAt(path.length() - 1) != '/') {
        path.append('/');
      }
      path.append(segment(level));
    }
    return path.toString();
  }

  /**
   * The directory name that a namespace level or a table name gets in a default location: the name
   * itself when every character of it may stand in a location's path segment as it is (letters and
   * digits of any script, a space, and {@code -._~!$&'()*+,;=:@}) and it is not {@code .} or {@code
   * ..}; otherwise the name with each other character replaced by {@code _}, followed by {@code -}
   * and 8 hex digits of the name's SHA-256, so that names differing only in such characters keep
   * directories of their own. Iceberg allows any string as a name; a location is a URI, which
   * cannot hold quotes, {@code #}, {@code ?}, {@code %} (read as an escape), backslashes or control
   * characters, and a {@code /} or a {@code ..} would leave the parent's directory.
   */
  public static String segment(String name) {
    requireNonNull(name, "name is null");
    boolean plain = !name.isEmpty() && !name.equals(".") && !name.equals("..");
    StringBuilder segment = new StringBuilder(name.length() + 9);
    for (int i = 0; i < name.length(); ) {
      int codePoint = name.codePointAt(i);
      i += Character.charCount(codePoint);
      if (Character.isLetterOrDigit(codePoint) || PLAIN_PUNCTUATION.indexOf(codePoint) >= 0) {
        segment.appendCodePoint(codePoint);
      } else {
        segment.append('_');
        plain = false;
      }
    }
    if (plain) {
      return name;
    }
    byte[] digest;
    try {
      digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JVM has no SHA-256", e);
    }
    return segment.append('-').append(HexFormat.of().formatHex(digest, 0, 4)).toString();
  }

  private static final String PLAIN_PUNCTUATION = " -._~!$&'()*+,;=:@";

  /**
   * The canonical form of a location: {@code file:/absolute/normal/path} for local files, {@code
   * s3://bucket/key} for S3; no trailing slash except for a root ({@code file:/}, {@code
   * s3://bucket/}).
   *
   * @throws BadRequestException if the location cannot be read as a local path or an S3 location,
   *     or names an S3 key with an empty, {@code .} or {@code ..} segment
   */
  public static String canonical(String location) {
    requireNonNull(location, "location is null");
    String lower = location.toLowerCase(Locale.ROOT);
    if (lower.startsWith("file:") || lower.startsWith("local:") || location.startsWith("/")) {
      return "file:" + localPath(location);
    }
    for (String scheme : List.of("s3://", "s3a://", "s3n://")) {
      if (lower.startsWith(scheme)) {
        return "s3://" + objectKey(location, location.substring(scheme.length()));
      }
    }
    throw new BadRequestException(
        "Invalid location '%s': only file: (or local:) paths and s3:// locations are supported",
        location);
  }

  /**
   * A location as the server's file IO reads it: {@code local:} (how Trino's local file system
   * spells local files) becomes {@code file:}; any other location is returned as it is.
   */
  public static String readable(String location) {
    requireNonNull(location, "location is null");
    if (location.regionMatches(true, 0, "local:", 0, 6)) {
      return "file:" + location.substring(6);
    }
    return location;
  }

  /** Whether {@code inner} is {@code outer} or lies below it; both canonical. */
  public static boolean contains(String outer, String inner) {
    if (inner.equals(outer)) {
      return true;
    }
    String prefix = outer.endsWith("/") ? outer : outer + "/";
    return inner.startsWith(prefix);
  }

  /** Whether one canonical location is, contains or lies in the other. */
  public static boolean overlap(String first, String second) {
    return contains(first, second) || contains(second, first);
  }

  /**
   * Checks that a location lies under the warehouse or an allowed location, and returns it in
   * canonical form.
   *
   * @param what what the location is for, for the message ("table db.t")
   * @throws BadRequestException naming the location and the allowed ones when it lies elsewhere
   */
  public String checkAllowed(String location, String what) {
    String canonical = canonical(location);
    for (String root : allowed) {
      if (contains(root, canonical)) {
        return canonical;
      }
    }
    throw new BadRequestException(
        "Invalid location '%s' for %s: locations must lie under the warehouse location%s %s",
        location, what, allowed.size() > 1 ? " or an allowed location" : "", allowed);
  }

  private static String localPath(String location) {
    Path path;
    try {
      path = LocalFileIO.toPath(readable(location));
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(
          "Invalid location '%s': not a local path (%s)", location, e.getMessage());
    }
    if (!path.isAbsolute()) {
      throw new BadRequestException("Invalid location '%s': not an absolute path", location);
    }
    Path real = realPath(path.normalize());
    String text = real.toString();
    return text.isEmpty() ? "/" : text;
  }

  /**
   * The path with symbolic links resolved in the longest part of it that exists; the rest, which
   * does not exist yet, is appended as it is.
   */
  private static Path realPath(Path path) {
    Path existing = path;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return path;
    }
    try {
      Path real = existing.toRealPath();
      return real.resolve(existing.relativize(path)).normalize();
    } catch (IOException e) {
      return path;
    }
  }

  private static String objectKey(String location, String rest) {
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String key = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty()) {
      throw new BadRequestException("Invalid location '%s': it names no bucket", location);
    }
    while (key.endsWith("/")) {
      key = key.substring(0, key.length() - 1);
    }
    if (!key.isEmpty()) {
      for (String segment : key.split("/", -1)) {
        if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
          throw new BadRequestException(
              "Invalid location '%s': empty, '.' and '..' segments are not allowed in object keys",
              location);
        }
      }
    }
    if (location.indexOf('?') >= 0 || location.indexOf('#') >= 0) {
      throw new BadRequestException(
          "Invalid location '%s': a query or fragment is not allowed", location);
    }
    return bucket + "/" + key;
  }
}
