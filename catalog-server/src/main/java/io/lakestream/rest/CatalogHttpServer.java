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
import io.lakestream.auth.Authenticator;
import io.lakestream.auth.Principal;
import io.lakestream.metrics.ServerMetrics;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.HandlerWrapper;

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
  private static final String OAUTH_TOKENS_PATH = "/v1/oauth/tokens";
  private static final long MAX_DISCARDED_BYTES = 8L * 1024 * 1024;
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
  private final long maxRequestBytes;

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
    this.maxRequestBytes = maxRequestBytes;
    this.app =
        Javalin.create(
            config -> {
              config.showJavalinBanner = false;
              config.startupWatcherEnabled = false;
              config.http.maxRequestSize = maxRequestBytes;
              config.http.generateEtags = false;
              config.jetty.modifyServer(
                  server -> {
                    server.setStopTimeout(stopTimeout.toMillis());
                    insertInnermost(server, new RestTransport());
                  });
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
    app.post(OAUTH_TOKENS_PATH, this::issueToken);
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

  /**
   * Serves {@code /v1} (but the token endpoint) straight from Jetty, ahead of Javalin's servlet:
   * the catalog's routes are matched by {@link RestRouter}, so Javalin's routing, context and
   * session handling would be work for nothing on every request. It sits inside Jetty's statistics
   * handler, so a graceful stop still waits for its requests.
   */
  private final class RestTransport extends HandlerWrapper {
    @Override
    public void handle(
        String target, Request base, HttpServletRequest request, HttpServletResponse response)
        throws IOException, ServletException {
      String path = base.getRequestURI();
      if (path.startsWith("/v1/") && !path.equals(OAUTH_TOKENS_PATH)) {
        base.setHandled(true);
        serve(base, path, base.getResponse());
        return;
      }
      super.handle(target, base, request, response);
    }
  }

  /** Puts {@code handler} inside the innermost wrapper of the server's handler chain. */
  private static void insertInnermost(Server server, HandlerWrapper handler) {
    HandlerWrapper innermost = server;
    while (innermost.getHandler() instanceof HandlerWrapper next) {
      innermost = next;
    }
    if (innermost.getHandler() != null) {
      throw new IllegalStateException(
          "Unexpected Jetty handler " + innermost.getHandler().getClass().getName());
    }
    innermost.setHandler(handler);
  }

  private void serve(Request base, String path, Response out) {
    long started = System.nanoTime();
    String routeName = "unmatched";
    try {
      String method = base.getMethod();
      Principal principal;
      try {
        principal = authenticator.authenticate(base.getHeader("Authorization"));
      } catch (NotAuthorizedException e) {
        out.setHeader("WWW-Authenticate", "Bearer realm=\"lakestream\"");
        writeError(out, RestErrors.toErrorResponse(e));
        return;
      }
      Optional<RestRouter.Match> match = router.match(method, path);
      if (match.isEmpty()) {
        writeError(
            out, RestErrors.error(404, "NotFoundException", "No route for " + method + " " + path));
        return;
      }
      routeName = match.get().route().metricName();
      RestRequest request =
          new RestRequest(
              principal,
              match.get().route(),
              match.get().warehouse(),
              match.get().parameters(),
              query(base.getQueryString()),
              headers(base),
              method.equals("GET") || method.equals("HEAD") || method.equals("DELETE")
                  ? new byte[0]
                  : body(base));
      RestResponse response = handlers.handle(request);
      out.setStatus(response.status());
      if (response.body() instanceof byte[] raw) {
        write(base, out, response.headers(), raw);
      } else if (response.body() != null) {
        write(base, out, response.headers(), mapper.writeValueAsBytes(response.body()));
      } else {
        response.headers().forEach(out::setHeader);
      }
    } catch (RequestTooLargeException e) {
      writeError(out, RestErrors.error(413, "RequestTooLarge", e.getMessage()));
    } catch (Exception | Error e) { // an Error must still answer with an ErrorResponse
      writeError(out, RestErrors.toErrorResponse(e));
    } finally {
      metrics.recordRequest(routeName, out.getStatus(), System.nanoTime() - started);
    }
  }

  /**
   * The request body, refused (413) beyond {@code maxRequestBytes}. A refused body is read and
   * dropped up to {@value #MAX_DISCARDED_BYTES} bytes first: a client still sending it when the
   * connection closes could otherwise lose the answer to a reset.
   */
  private byte[] body(Request base) throws IOException {
    long declared = base.getContentLengthLong();
    try (InputStream in = base.getInputStream()) {
      if (declared > maxRequestBytes) {
        discard(in);
        throw new RequestTooLargeException(declared, maxRequestBytes);
      }
      byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxRequestBytes + 1));
      if (body.length > maxRequestBytes) {
        discard(in);
        throw new RequestTooLargeException(body.length, maxRequestBytes);
      }
      return body;
    }
  }

  private static void discard(InputStream in) throws IOException {
    byte[] dropped = new byte[8192];
    long left = MAX_DISCARDED_BYTES;
    for (int read = 0; read >= 0 && left > 0; left -= read) {
      read = in.read(dropped, 0, (int) Math.min(dropped.length, left));
    }
  }

  /** A request body larger than the server accepts. */
  private static final class RequestTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RequestTooLargeException(long bytes, long maxBytes) {
      super("Request body of " + bytes + " bytes or more exceeds the limit of " + maxBytes);
    }
  }

  /**
   * Writes a JSON body with its length. A body that names its content with an ETag (loadTable) is
   * compressed once per content for clients that accept gzip; its ETag then carries the {@value
   * #GZIP_ETAG_SUFFIX} suffix, since a strong ETag names one encoding.
   */
  private void write(Request base, Response out, Map<String, String> headers, byte[] body)
      throws IOException {
    String etag = headers.get("ETag");
    byte[] sent = body;
    if (etag != null && body.length >= MIN_GZIP_BYTES && acceptsGzip(base)) {
      sent = gzipBodies.get(etag, () -> gzip(body));
      headers.forEach(
          (name, value) -> out.setHeader(name, name.equals("ETag") ? gzipETag(value) : value));
      out.setHeader("Content-Encoding", "gzip");
    } else {
      headers.forEach(out::setHeader);
    }
    if (etag != null) {
      out.setHeader("Vary", "Accept-Encoding");
    }
    out.setContentType("application/json");
    out.setContentLength(sent.length);
    out.getOutputStream().write(sent);
  }

  private static boolean acceptsGzip(Request base) {
    String accepted = base.getHeader("Accept-Encoding");
    return accepted != null && accepted.toLowerCase(Locale.ROOT).contains("gzip");
  }

  /**
   * Compressed at the fastest level: the body is compressed once per content but decompressed by
   * every client, and the fastest level costs a fraction of the default's time for a few percent
   * more bytes on JSON.
   */
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

  /** Query parameters, percent-decoded; the first value of a repeated name wins. */
  private static Map<String, String> query(String queryString) {
    if (queryString == null || queryString.isEmpty()) {
      return Map.of();
    }
    Map<String, String> query = new HashMap<>();
    for (String pair : queryString.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name = decodeQuery(equals < 0 ? pair : pair.substring(0, equals));
      String value = equals < 0 ? "" : decodeQuery(pair.substring(equals + 1));
      query.putIfAbsent(name, value);
    }
    return query;
  }

  private static String decodeQuery(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Malformed percent-encoding in query: %s", text);
    }
  }

  /** Header names in lower case, each with its first value. */
  private static Map<String, String> headers(Request base) {
    Map<String, String> headers = new HashMap<>();
    for (HttpField field : base.getHttpFields()) {
      headers.putIfAbsent(field.getLowerCaseName(), field.getValue());
    }
    headers.computeIfPresent("if-none-match", (name, value) -> withoutGzipSuffix(value));
    return headers;
  }

  private static void writeError(Response out, ErrorResponse error) {
    byte[] body = ErrorResponseParser.toJson(error).getBytes(StandardCharsets.UTF_8);
    out.setStatus(error.code());
    out.setContentType("application/json");
    out.setContentLength(body.length);
    try {
      out.getOutputStream().write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
