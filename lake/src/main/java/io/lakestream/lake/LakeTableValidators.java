package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The registry of {@link LakeTableValidator}s on the class path, by format name, loaded once.
 *
 * <p>Thread safe.
 */
public final class LakeTableValidators {
  private static final Map<String, LakeTableValidator> BY_FORMAT = load();

  private LakeTableValidators() {}

  private static Map<String, LakeTableValidator> load() {
    Map<String, LakeTableValidator> validators = new TreeMap<>();
    for (LakeTableValidator validator :
        ServiceLoader.load(LakeTableValidator.class, LakeTableValidator.class.getClassLoader())) {
      LakeTableValidator before = validators.putIfAbsent(validator.format(), validator);
      if (before != null) {
        throw new IllegalStateException(
            "Two validators for lake format '"
                + validator.format()
                + "': "
                + before.getClass().getName()
                + " and "
                + validator.getClass().getName());
      }
    }
    return Map.copyOf(validators);
  }

  /**
   * The validator of a lake format.
   *
   * @param format a value of {@code lakestream.lake-format}, such as {@code paimon}
   * @throws IllegalStateException when no validator of that format is on the class path (a
   *     deployment error: the format's module is missing)
   */
  public static LakeTableValidator of(String format) {
    requireNonNull(format, "format is null");
    LakeTableValidator validator = BY_FORMAT.get(format);
    if (validator == null) {
      throw new IllegalStateException(
          "No validator of lake format '"
              + format
              + "' on the class path; there are validators of "
              + new TreeMap<>(BY_FORMAT).keySet());
    }
    return validator;
  }
}
