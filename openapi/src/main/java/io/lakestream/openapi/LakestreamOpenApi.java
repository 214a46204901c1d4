package io.lakestream.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The OpenAPI document of Lakestream's own REST endpoints, {@value #RESOURCE} on the class path
 * (the source of truth; contract tests check the live server against it).
 */
public final class LakestreamOpenApi {
  /** Where the document is, as a class path resource. */
  public static final String RESOURCE = "/io/lakestream/openapi/lakestream-openapi.yaml";

  private LakestreamOpenApi() {}

  /**
   * The document as a JSON tree.
   *
   * @throws UncheckedIOException when the resource cannot be read
   * @throws IllegalStateException when it is missing
   */
  public static JsonNode document() {
    try (InputStream in = LakestreamOpenApi.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("No " + RESOURCE + " on the class path");
      }
      Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
      return new ObjectMapper().valueToTree(tree);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCE, e);
    }
  }
}
