package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.lakestream.auth.Authenticator;
import io.lakestream.auth.Authorizer;
import io.lakestream.auth.Principal;
import io.lakestream.metrics.ServerMetrics;
import io.lakestream.rest.HttpTransport.Answer;
import io.lakestream.rest.HttpTransport.Call;
import io.lakestream.rest.HttpTransport.Verdict;
import io.lakestream.ui.Console;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;

/**
 * The HTTP server: the Iceberg REST catalog under {@code /v1}, the OAuth2 token endpoint, liveness
 * at {@code /health}, readiness at {@code /ready} (both open to everyone) and Prometheus metrics at
 * {@code /metrics} (for the principals {@link Authorizer#checkMetrics} allows).
 *
 * <p>This class turns HTTP calls (read by {@link HttpTransport}) into {@link RestRequest}s, hands
 * them to a {@link RestHandler}, and writes the {@link RestResponse} or the {@link
 * RestErrors}-mapped error back. Every error body is an Iceberg {@code ErrorResponse}.
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

  private static final String OAUTH_TOKENS_PATH = "/v1/oauth/tokens";
  private static final String JSON = "application/json";
  private static final int MIN_COMPRESSED_BYTES = 1500;
  // A client-credentials form is a few hundred bytes.
  private static final long MAX_TOKEN_REQUEST_BYTES = 64 * 1024;

  private final HttpTransport transport;
  private final ResponseCache<String, byte[]> encodedBodies = new ResponseCache<>(256);
  private final RestRouter router = new RestRouter();
  private final RestHandler handlers;
  private final Authenticator authenticator;
  private final OAuthTokenEndpoint tokenEndpoint;
  private final ObjectMapper mapper;
  private final ServerMetrics metrics;
  private final BooleanSupplier ready;
  private final Authorizer authorizer;
  private final long maxRequestBytes;
  private volatile Console console;

  /**
   * @param authorizer decides who may read {@code /metrics} ({@link Authorizer#checkMetrics})
   * @param limits what clients may make the server hold: body size, request timeout, buffered
   *     bodies, connections per address
   * @param stopTimeout how long {@link #close} waits for running requests
   * @param ready whether the whole server is ready to serve (for {@code /ready})
   */
  public CatalogHttpServer(
      RestHandler handlers,
      Authenticator authenticator,
      Authorizer authorizer,
      OAuthTokenEndpoint tokenEndpoint,
      ObjectMapper mapper,
      ServerMetrics metrics,
      HttpLimits limits,
      Duration stopTimeout,
      BooleanSupplier ready) {
    this.handlers = requireNonNull(handlers, "handlers is null");
    this.authenticator = requireNonNull(authenticator, "authenticator is null");
    this.authorizer = requireNonNull(authorizer, "authorizer is null");
    this.tokenEndpoint = requireNonNull(tokenEndpoint, "tokenEndpoint is null");
    this.mapper = requireNonNull(mapper, "mapper is null");
    this.metrics = requireNonNull(metrics, "metrics is null");
    this.ready = requireNonNull(ready, "ready is null");
    this.maxRequestBytes = limits.maxRequestBytes();
    this.transport = new HttpTransport(new Routes(), limits, stopTimeout);
  }

  /**
   * Starts listening.
   *
   * @throws IllegalStateException with the bind failure as its cause when the address cannot be
   *     bound
   */
  public void start(String host, int port) {
    try {
      transport.start(host, port);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while binding " + host + ":" + port, e);
    } catch (Exception e) { // Netty rethrows the bind failure undeclared
      throw new IllegalStateException(String.valueOf(e.getMessage()), e);
    }
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return transport.address().getPort();
  }

  public InetSocketAddress address() {
    return transport.address();
  }

  /**
   * Serves the web console under {@code /ui} (and redirects {@code /} to it); before this, those
   * paths answer 404.
   */
  public void serveConsole(Console console) {
    this.console = requireNonNull(console, "console is null");
  }

  /** Which code answers which path. */
  private final class Routes implements HttpTransport.Service {
    @Override
    public Answer answer(Call call) {
      String path = call.path();
      if (path.startsWith("/v1/") && !path.equals(OAUTH_TOKENS_PATH)) {
        return serve(call);
      }
      boolean get = call.method().equals("GET") || call.method().equals("HEAD");
      if (get && path.equals("/health")) {
        return json(200, "{\"status\":\"up\"}");
      }
      if (get && path.equals("/ready")) {
        boolean isReady = ready.getAsBoolean();
        return json(
            isReady ? 200 : 503, isReady ? "{\"status\":\"ready\"}" : "{\"status\":\"starting\"}");
      }
      if (get && path.equals("/metrics")) {
        return scrapeMetrics(call);
      }
      if (call.method().equals("POST") && path.equals(OAUTH_TOKENS_PATH)) {
        return issueToken(call);
      }
      Console ui = console;
      if (ui != null && Console.serves(path)) {
        return serveConsole(ui, call);
      }
      return error(
          RestErrors.error(404, "NotFoundException", "No route for " + call.method() + " " + path));
    }

    @Override
    public Answer answerWithoutWaiting(Call call) {
      String path = call.path();
      return path.startsWith("/v1/") && !path.equals(OAUTH_TOKENS_PATH)
          ? serveWithoutWaiting(call)
          : null;
    }

    /**
     * Requests with a body are authenticated on their headers (the catalog's routes and the metrics
     * need a principal), and the token endpoint takes small bodies only. Other paths answer without
     * reading a body, which the transport's size, time and memory limits bound.
     */
    @Override
    public Verdict screenWithoutWaiting(Call head) {
      String path = head.path();
      if (path.equals(OAUTH_TOKENS_PATH)) {
        String length = head.header("content-length");
        return length != null && parseLength(length) > MAX_TOKEN_REQUEST_BYTES
            ? new Verdict(
                refuse(413, "Token requests are limited to " + MAX_TOKEN_REQUEST_BYTES + " bytes"))
            : Verdict.ADMIT;
      }
      if (!needsPrincipal(path)) {
        return Verdict.ADMIT;
      }
      return authenticator.authenticateWithoutWaiting(head.header("authorization")).isPresent()
          ? Verdict.ADMIT
          : null;
    }

    @Override
    public Verdict screen(Call head) {
      if (!needsPrincipal(head.path())) {
        return Verdict.ADMIT;
      }
      try {
        authenticator.authenticate(head.header("authorization"));
        return Verdict.ADMIT;
      } catch (NotAuthorizedException e) {
        metrics.recordRequest("unmatched", 401, 0);
        return new Verdict(unauthorized(e));
      } catch (RuntimeException e) { // mapped as serving the call would map it
        return new Verdict(error(RestErrors.toErrorResponse(e)));
      }
    }

    @Override
    public Answer refuse(int status, String reason) {
      String type =
          switch (status) {
            case 408 -> "RequestTimeout";
            case 413 -> "RequestTooLarge";
            case 500 -> "RuntimeException";
            case 503 -> "ServiceUnavailableException";
            default -> "BadRequestException";
          };
      return error(RestErrors.error(status, type, reason));
    }
  }

  private static boolean needsPrincipal(String path) {
    return (path.startsWith("/v1/") && !path.equals(OAUTH_TOKENS_PATH)) || path.equals("/metrics");
  }

  private static long parseLength(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Answer unauthorized(NotAuthorizedException e) {
    return withHeader(error(RestErrors.toErrorResponse(e)), "WWW-Authenticate", BEARER);
  }

  /** Answers a catalog call under {@code /v1} and records it in the metrics. */
  private Answer serve(Call call) {
    long started = System.nanoTime();
    String routeName = "unmatched";
    Answer answer = null;
    try {
      Principal principal;
      try {
        principal = authenticator.authenticate(call.header("authorization"));
      } catch (NotAuthorizedException e) {
        answer = withHeader(error(RestErrors.toErrorResponse(e)), "WWW-Authenticate", BEARER);
        return answer;
      }
      Optional<RestRouter.Match> match = router.match(call.method(), call.path());
      if (match.isEmpty()) {
        answer =
            error(
                RestErrors.error(
                    404, "NotFoundException", "No route for " + call.method() + " " + call.path()));
        return answer;
      }
      routeName = match.get().route().metricName();
      if (call.bodyTooLarge()) {
        answer = error(RestErrors.error(413, "RequestTooLarge", tooLarge()));
        return answer;
      }
      answer = answer(call, handlers.handle(request(call, principal, match.get())));
      return answer;
    } catch (Exception | Error e) { // an Error must still answer with an ErrorResponse
      answer = error(RestErrors.toErrorResponse(e));
      return answer;
    } finally {
      metrics.recordRequest(
          routeName, answer == null ? 500 : answer.status(), System.nanoTime() - started);
    }
  }

  /**
   * Answers a catalog GET on the event loop if the handlers can without waiting (see {@link
   * RestHandler#handleWithoutWaiting}); null hands it to {@link #serve} on a worker, which also
   * answers every error. Nothing is recorded unless this answers.
   */
  private Answer serveWithoutWaiting(Call call) {
    if (!call.method().equals("GET") || call.bodyTooLarge()) {
      return null;
    }
    long started = System.nanoTime();
    try {
      Optional<Principal> principal =
          authenticator.authenticateWithoutWaiting(call.header("authorization"));
      if (principal.isEmpty()) {
        return null;
      }
      Optional<RestRouter.Match> match = router.match(call.method(), call.path());
      if (match.isEmpty()) {
        return null;
      }
      Optional<RestResponse> response =
          handlers.handleWithoutWaiting(request(call, principal.get(), match.get()));
      if (response.isEmpty()) {
        return null;
      }
      // What handlers answer without waiting comes from their caches: the same array each time.
      Answer reused = answer(call, response.get());
      Answer answer =
          new Answer(reused.status(), reused.headers(), reused.body(), reused.body().length > 0);
      metrics.recordRequest(
          match.get().route().metricName(), answer.status(), System.nanoTime() - started);
      return answer;
    } catch (Exception e) {
      return null;
    }
  }

  private RestRequest request(Call call, Principal principal, RestRouter.Match match) {
    Map<String, String> headers = new HashMap<>(call.headers());
    headers.computeIfPresent(
        "if-none-match", (name, value) -> ContentEncoding.withoutSuffixes(value));
    return new RestRequest(
        principal,
        match.route(),
        match.warehouse(),
        match.parameters(),
        query(call.queryString()),
        headers,
        call.body());
  }

  private Answer answer(Call call, RestResponse response) throws JsonProcessingException {
    if (response.body() instanceof byte[] raw) {
      return withBody(call, response.status(), response.headers(), raw);
    }
    if (response.body() != null) {
      return withBody(
          call, response.status(), response.headers(), mapper.writeValueAsBytes(response.body()));
    }
    return new Answer(response.status(), response.headers(), new byte[0]);
  }

  private static final String BEARER = "Bearer realm=\"lakestream\"";

  private String tooLarge() {
    return "Request body exceeds the limit of " + maxRequestBytes + " bytes";
  }

  /**
   * A JSON body with its headers. A body that names its content with an ETag (loadTable, commits)
   * is compressed once per content and encoding for clients that accept zstd or gzip; its ETag then
   * names the encoding too.
   */
  private Answer withBody(Call call, int status, Map<String, String> headers, byte[] body) {
    Map<String, String> sentHeaders = new HashMap<>(headers);
    String etag = headers.get("ETag");
    byte[] sent = body;
    if (etag != null && body.length >= MIN_COMPRESSED_BYTES) {
      ContentEncoding encoding = ContentEncoding.choose(call.header("accept-encoding"));
      if (encoding != ContentEncoding.IDENTITY) {
        String encodedETag = encoding.etag(etag);
        sent = encodedBodies.get(encodedETag, () -> encoding.encode(body));
        sentHeaders.put("ETag", encodedETag);
        sentHeaders.put("Content-Encoding", encoding.token());
      }
    }
    if (etag != null) {
      sentHeaders.put("Vary", "Accept-Encoding");
    }
    sentHeaders.put("Content-Type", JSON);
    return new Answer(status, sentHeaders, sent);
  }

  private Answer scrapeMetrics(Call call) {
    try {
      authorizer.checkMetrics(authenticator.authenticate(call.header("authorization")));
    } catch (NotAuthorizedException e) {
      return unauthorized(e);
    } catch (ForbiddenException e) {
      return error(RestErrors.toErrorResponse(e));
    }
    return new Answer(200, Map.of("Content-Type", metrics.contentType()), metrics.scrape());
  }

  private Answer serveConsole(Console ui, Call call) {
    if (call.bodyTooLarge()) {
      return error(RestErrors.error(413, "RequestTooLarge", tooLarge()));
    }
    Console.Response response =
        ui.answer(
            new Console.Request(
                call.method(),
                call.path(),
                call.queryString(),
                call.header("authorization"),
                call.body()));
    return new Answer(
        response.status(),
        response.headers(),
        call.method().equals("HEAD") ? new byte[0] : response.body());
  }

  private Answer issueToken(Call call) {
    long started = System.nanoTime();
    OAuthTokenEndpoint.Answer answer =
        call.bodyTooLarge()
            ? new OAuthTokenEndpoint.Answer(
                413, Map.of("error", "invalid_request", "error_description", tooLarge()))
            : tokenEndpoint.handle(
                new String(call.body(), StandardCharsets.UTF_8), call.header("authorization"));
    try {
      return new Answer(
          answer.status(),
          Map.of("Cache-Control", "no-store", "Content-Type", JSON),
          mapper.writeValueAsBytes(answer.body()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    } finally {
      metrics.recordRequest("oauth_tokens", answer.status(), System.nanoTime() - started);
    }
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

  private static Answer json(int status, String body) {
    return new Answer(status, Map.of("Content-Type", JSON), body.getBytes(StandardCharsets.UTF_8));
  }

  private static Answer error(ErrorResponse error) {
    return new Answer(
        error.code(),
        Map.of("Content-Type", JSON),
        ErrorResponseParser.toJson(error).getBytes(StandardCharsets.UTF_8));
  }

  private static Answer withHeader(Answer answer, String name, String value) {
    Map<String, String> headers = new HashMap<>(answer.headers());
    headers.put(name, value);
    return new Answer(answer.status(), headers, answer.body());
  }

  /**
   * Stops accepting, lets in-flight requests finish (up to the stop timeout), and releases the
   * port.
   */
  @Override
  public void close() {
    transport.close();
  }
}
