package io.lakestream.ui;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.auth.Authenticator;
import io.lakestream.auth.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

/**
 * The web console under {@code /ui}: its static assets (from this jar, and Chart.js from its
 * WebJar) and the JSON endpoints under {@code /ui/api/} that {@link ConsoleApi} answers.
 *
 * <p>Assets come from a fixed list of names, so no request path reaches another resource; a path
 * with a dot segment, a percent sign, a backslash or an empty segment is refused with 400. Every
 * {@code /ui/api} call authenticates its {@code authorization} header with the server's {@link
 * Authenticator}; with {@code auth.mode=oauth2} a call without a valid bearer token gets 401.
 *
 * <p>This class is the one place that maps exceptions to the console's JSON errors ({@code
 * {"error": "...", "message": "..."}}). Thread safe.
 */
public final class Console {
  /** The console's path prefix. */
  public static final String PREFIX = "/ui";

  private static final String API = "/ui/api/";
  private static final String CHART_JS =
      "META-INF/resources/webjars/chart.js/4.4.1/dist/chart.umd.js";
  private static final Map<String, Asset> ASSETS =
      Map.of(
          "", new Asset("ui/index.html", "text/html; charset=utf-8", "no-cache"),
          "index.html", new Asset("ui/index.html", "text/html; charset=utf-8", "no-cache"),
          "app.js", new Asset("ui/app.js", "text/javascript; charset=utf-8", "no-cache"),
          "app.css", new Asset("ui/app.css", "text/css; charset=utf-8", "no-cache"),
          "lib/chart.umd.js",
              new Asset(CHART_JS, "text/javascript; charset=utf-8", "public, max-age=86400"));

  /** An HTTP request as the console sees it: the path and query undecoded. */
  public record Request(
      String method, String path, String queryString, String authorization, byte[] body) {}

  /** An HTTP answer. */
  public record Response(int status, Map<String, String> headers, byte[] body) {}

  private record Asset(String resource, String contentType, String cacheControl) {}

  private final Authenticator authenticator;
  private final Supplier<Optional<ConsoleApi>> api;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<String, byte[]> loaded = new ConcurrentHashMap<>();

  /**
   * @param api the endpoints once the server's stream service runs (empty before: 503)
   */
  public Console(Authenticator authenticator, Supplier<Optional<ConsoleApi>> api) {
    this.authenticator = requireNonNull(authenticator, "authenticator is null");
    this.api = requireNonNull(api, "api is null");
  }

  /** Whether {@code path} is the console's (or {@code /}, which redirects to it). */
  public static boolean serves(String path) {
    return path.equals("/") || path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  public Response answer(Request request) {
    String path = request.path();
    if (path.equals("/") || path.equals(PREFIX)) {
      return new Response(302, Map.of("Location", PREFIX + "/"), new byte[0]);
    }
    String rest = path.substring(PREFIX.length() + 1);
    if (!safe(rest)) {
      return error(400, "BadRequestException", "Malformed console path");
    }
    if (path.startsWith(API)) {
      return api(request, path.substring(API.length()));
    }
    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
      return error(405, "MethodNotAllowed", "Console assets answer GET only");
    }
    Asset asset = ASSETS.get(rest);
    if (asset == null) {
      return error(404, "NotFoundException", "No console asset " + rest);
    }
    return new Response(
        200,
        Map.of(
            "Content-Type",
            asset.contentType(),
            "Cache-Control",
            asset.cacheControl(),
            "X-Content-Type-Options",
            "nosniff"),
        loaded.computeIfAbsent(asset.resource(), Console::load));
  }

  private static boolean safe(String rest) {
    if (rest.contains("%") || rest.contains("\\") || rest.contains("//")) {
      return false;
    }
    for (String segment : rest.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return true;
  }

  private Response api(Request request, String endpoint) {
    try {
      Principal principal = authenticator.authenticate(request.authorization());
      ConsoleApi endpoints =
          api.get()
              .orElseThrow(
                  () -> new ServiceUnavailableException("The console is starting; try again"));
      Object body =
          endpoints.handle(
              principal,
              request.method(),
              endpoint,
              ConsoleApi.query(request.queryString()),
              request.body(),
              request.authorization());
      return new Response(
          200,
          Map.of("Content-Type", "application/json", "Cache-Control", "no-store"),
          mapper.writeValueAsBytes(body));
    } catch (NotAuthorizedException e) {
      Response unauthorized = error(401, "NotAuthorizedException", e.getMessage());
      return new Response(
          401,
          Map.of(
              "Content-Type",
              "application/json",
              "WWW-Authenticate",
              "Bearer realm=\"lakestream\""),
          unauthorized.body());
    } catch (ConsoleApi.NoSuchEndpointException e) {
      return error(404, "NotFoundException", e.getMessage());
    } catch (ConsoleApi.MethodNotAllowedException e) {
      return error(405, "MethodNotAllowed", e.getMessage());
    } catch (BadRequestException | IllegalArgumentException e) {
      return error(400, "BadRequestException", e.getMessage());
    } catch (ForbiddenException e) {
      return error(403, "ForbiddenException", e.getMessage());
    } catch (NoSuchTableException | NoSuchNamespaceException | NotFoundException e) {
      return error(404, e.getClass().getSimpleName(), e.getMessage());
    } catch (ConsoleApi.QueryFailedException e) {
      return error(e.status(), "QueryFailed", e.getMessage());
    } catch (ServiceUnavailableException e) {
      return error(503, "ServiceUnavailableException", e.getMessage());
    } catch (IOException | RuntimeException e) {
      return error(500, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
    }
  }

  private Response error(int status, String type, String message) {
    ObjectNode node = mapper.createObjectNode();
    node.put("error", type);
    node.put("message", message);
    return new Response(
        status,
        Map.of("Content-Type", "application/json", "Cache-Control", "no-store"),
        node.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] load(String resource) {
    try (InputStream in = Console.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("The console resource " + resource + " is missing");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
