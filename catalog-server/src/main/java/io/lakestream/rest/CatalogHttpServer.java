package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.lakestream.auth.Authenticator;
import io.lakestream.auth.Principal;
import io.lakestream.metrics.ServerMetrics;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The HTTP server: the Iceberg REST catalog under {@code /v1}, liveness at {@code /health},
 * readiness at {@code /ready} and Prometheus metrics at {@code /metrics}.
 *
 * <p>This class owns transport only: it turns HTTP exchanges into {@link RestRequest}s, hands them
 * to a {@link RestHandler}, and writes the {@link RestResponse} or the {@link RestErrors}-mapped
 * error back. Every error body is an Iceberg {@code ErrorResponse}.
 */
public final class CatalogHttpServer implements AutoCloseable {
  /** The object mapper configured as Iceberg's REST client expects (kebab-case fields). */
  public static ObjectMapper icebergMapper() {
    JsonFactory factory =
        new JsonFactoryBuilder()
            .configure(JsonFactory.Feature.INTERN_FIELD_NAMES, false)
            .configure(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW, false)
            .build();
    ObjectMapper mapper = new ObjectMapper(factory);
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(mapper);
    return mapper;
  }

  private static final String GZIP_ETAG_SUFFIX = "--gzip";
  private static final int MIN_GZIP_BYTES = 1500;

  private final Javalin app;
  private final ResponseCache<String, byte[]> gzipBodies = new ResponseCache<>(256);
  private final RestRouter router = new RestRouter();
  private final RestHandler handlers;
  private final Authenticator authenticator;
  private final OAuthTokenEndpoint tokenEndpoint;
  private final ObjectMapper mapper;
  private final ServerMetrics metrics;
  private final BooleanSupplier ready;

  /**
   * @param maxRequestBytes larger request bodies get 413
   * @param ready whether the whole server is ready to serve (for {@code /ready})
   */
  public CatalogHttpServer(
      RestHandler handlers,
      Authenticator authenticator,
      OAuthTokenEndpoint tokenEndpoint,
      ObjectMapper mapper,
      ServerMetrics metrics,
      long maxRequestBytes,
      Duration stopTimeout,
      BooleanSupplier ready) {
    this.handlers = requireNonNull(handlers, "handlers is null");
    this.authenticator = requireNonNull(authenticator, "authenticator is null");
    this.tokenEndpoint = requireNonNull(tokenEndpoint, "tokenEndpoint is null");
    this.mapper = requireNonNull(mapper, "mapper is null");
    this.metrics = requireNonNull(metrics, "metrics is null");
    this.ready = requireNonNull(ready, "ready is null");
    this.app =
        Javalin.create(
            config -> {
              config.showJavalinBanner = false;
              config.startupWatcherEnabled = false;
              config.http.maxRequestSize = maxRequestBytes;
              config.http.generateEtags = false;
              config.jetty.modifyServer(server -> server.setStopTimeout(stopTimeout.toMillis()));
            });
    app.get("/health", ctx -> ctx.contentType("application/json").result("{\"status\":\"up\"}"));
    app.get(
        "/ready",
        ctx -> {
          boolean isReady = this.ready.getAsBoolean();
          ctx.status(isReady ? 200 : 503)
              .contentType("application/json")
              .result(isReady ? "{\"status\":\"ready\"}" : "{\"status\":\"starting\"}");
        });
    app.get(
        "/metrics",
        ctx -> {
          try {
            this.authenticator.authenticate(ctx.header("Authorization"));
          } catch (NotAuthorizedException e) {
            unauthorized(ctx, e);
            return;
          }
          ctx.contentType(this.metrics.contentType()).result(this.metrics.scrape());
        });
    app.post("/v1/oauth/tokens", this::issueToken);
    for (HandlerType method :
        new HandlerType[] {
          HandlerType.GET,
          HandlerType.POST,
          HandlerType.DELETE,
          HandlerType.HEAD,
          HandlerType.PUT,
          HandlerType.PATCH
        }) {
      app.addHttpHandler(method, "/v1/*", this::serve);
    }
    app.error(
        404,
        ctx -> {
          if (ctx.result() == null || ctx.result().isEmpty()) {
            writeError(
                ctx, RestErrors.error(404, "NotFoundException", "No route for " + ctx.path()));
          }
        });
  }

  /**
   * Starts listening.
   *
   * @throws java.io.UncheckedIOException or a Javalin exception when the port cannot be bound
   */
  public void start(String host, int port) {
    app.start(host, port);
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return app.port();
  }

  public InetSocketAddress address() {
    ServerConnector connector = (ServerConnector) app.jettyServer().server().getConnectors()[0];
    return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
  }

  private void serve(Context ctx) {
    long started = System.nanoTime();
    String routeName = "unmatched";
    try {
      String method = ctx.method().name();
      Principal principal;
      try {
        principal = authenticator.authenticate(ctx.header("Authorization"));
      } catch (NotAuthorizedException e) {
        unauthorized(ctx, e);
        return;
      }
      Optional<RestRouter.Match> match = router.match(method, ctx.path());
      if (match.isEmpty()) {
        writeError(
            ctx,
            RestErrors.error(
                404, "NotFoundException", "No route for " + method + " " + ctx.path()));
        return;
      }
      routeName = match.get().route().name().toLowerCase(Locale.ROOT);
      RestRequest request =
          new RestRequest(
              principal,
              match.get().route(),
              match.get().warehouse(),
              match.get().parameters(),
              query(ctx),
              headers(ctx),
              method.equals("GET") || method.equals("HEAD") || method.equals("DELETE")
                  ? new byte[0]
                  : ctx.bodyAsBytes());
      RestResponse response = handlers.handle(request);
      ctx.status(response.status());
      if (response.body() instanceof byte[] raw) {
        write(ctx, response.headers(), raw);
      } else if (response.body() != null) {
        write(ctx, response.headers(), mapper.writeValueAsBytes(response.body()));
      } else {
        response.headers().forEach(ctx::header);
      }
    } catch (io.javalin.http.HttpResponseException e) {
      writeError(ctx, RestErrors.error(e.getStatus(), statusType(e.getStatus()), e.getMessage()));
    } catch (Exception | Error e) { // an Error must still answer with an ErrorResponse
      writeError(ctx, RestErrors.toErrorResponse(e));
    } finally {
      metrics.recordRequest(routeName, ctx.statusCode(), System.nanoTime() - started);
    }
  }

  /**
   * Writes a JSON body straight to Jetty with its length, without Javalin's result stream (which
   * copies it in chunks and compresses it again for every request). A body that names its content
   * with an ETag (loadTable) is compressed once per content for clients that accept gzip; its ETag
   * then carries the {@value #GZIP_ETAG_SUFFIX} suffix, since a strong ETag names one encoding.
   */
  private void write(Context ctx, Map<String, String> headers, byte[] body) throws IOException {
    String etag = headers.get("ETag");
    byte[] sent = body;
    if (etag != null && body.length >= MIN_GZIP_BYTES && acceptsGzip(ctx)) {
      sent = gzipBodies.get(etag, () -> gzip(body));
      headers.forEach(
          (name, value) -> ctx.header(name, name.equals("ETag") ? gzipETag(value) : value));
      ctx.header("Content-Encoding", "gzip");
    } else {
      headers.forEach(ctx::header);
    }
    if (etag != null) {
      ctx.header("Vary", "Accept-Encoding");
    }
    HttpServletResponse servletResponse = ctx.res();
    servletResponse.setContentType("application/json");
    servletResponse.setContentLength(sent.length);
    servletResponse.getOutputStream().write(sent);
  }

  private static boolean acceptsGzip(Context ctx) {
    String accepted = ctx.header("Accept-Encoding");
    return accepted != null && accepted.toLowerCase(Locale.ROOT).contains("gzip");
  }

  private static byte[] gzip(byte[] body) {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream(body.length / 4);
    try (GZIPOutputStream out = new GZIPOutputStream(compressed, 8192)) {
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return compressed.toByteArray();
  }

  private static String gzipETag(String etag) {
    return etag.endsWith("\"")
        ? etag.substring(0, etag.length() - 1) + GZIP_ETAG_SUFFIX + "\""
        : etag;
  }

  /** If-None-Match as the handlers know the ETags: without the gzip suffix. */
  private static String withoutGzipSuffix(String ifNoneMatch) {
    return ifNoneMatch.replace(GZIP_ETAG_SUFFIX + "\"", "\"");
  }

  private void issueToken(Context ctx) {
    long started = System.nanoTime();
    OAuthTokenEndpoint.Answer answer;
    try {
      answer = tokenEndpoint.handle(ctx.body(), ctx.header("Authorization"));
    } catch (io.javalin.http.HttpResponseException e) {
      answer =
          new OAuthTokenEndpoint.Answer(
              e.getStatus(),
              Map.of("error", "invalid_request", "error_description", e.getMessage()));
    }
    try {
      ctx.status(answer.status())
          .header("Cache-Control", "no-store")
          .contentType("application/json")
          .result(mapper.writeValueAsBytes(answer.body()));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    } finally {
      metrics.recordRequest("oauth_tokens", ctx.statusCode(), System.nanoTime() - started);
    }
  }

  private void unauthorized(Context ctx, NotAuthorizedException e) {
    ctx.header("WWW-Authenticate", "Bearer realm=\"lakestream\"");
    writeError(ctx, RestErrors.toErrorResponse(e));
  }

  private static String statusType(int status) {
    return status == 413 ? "RequestTooLarge" : "BadRequestException";
  }

  private static Map<String, String> query(Context ctx) {
    Map<String, String> query = new HashMap<>();
    ctx.queryParamMap()
        .forEach(
            (name, values) -> {
              if (!values.isEmpty()) {
                query.put(name, values.get(0));
              }
            });
    return query;
  }

  private static Map<String, String> headers(Context ctx) {
    Map<String, String> headers = new HashMap<>();
    ctx.headerMap().forEach((name, value) -> headers.put(name.toLowerCase(Locale.ROOT), value));
    headers.computeIfPresent("if-none-match", (name, value) -> withoutGzipSuffix(value));
    return headers;
  }

  private void writeError(Context ctx, ErrorResponse error) {
    ctx.status(error.code())
        .contentType("application/json")
        .result(ErrorResponseParser.toJson(error).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Stops accepting, lets in-flight requests finish (up to the stop timeout), and releases the
   * port.
   */
  @Override
  public void close() {
    app.stop();
  }
}
