package io.lakestream.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.responses.ImmutableRemoteSignResponse;
import org.apache.iceberg.rest.responses.RemoteSignResponse;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Signs S3 requests for clients with the server's own S3 keys (Iceberg's remote signing), so that
 * clients reach a table's files without ever holding keys. A request is signed only if every object
 * it names lies inside one of the table's locations; the caller (the REST route) has already
 * checked that the principal may read (GET, HEAD) or write (PUT, POST, DELETE) the table.
 *
 * <p>What is signed: single-object requests (get, head, put, delete, multipart upload) for a key
 * under a location; listings whose {@code prefix} lies under a location; multi-object deletes whose
 * every key lies under a location. Everything else is refused with a {@link ForbiddenException}:
 * another bucket or key, another host than the warehouse's S3 endpoint, bucket-level operations,
 * {@code .} or {@code ..} key segments, sub-resources such as {@code ?acl}, and headers that would
 * reach other objects or widen access ({@code x-amz-copy-source}, {@code x-amz-acl}, {@code
 * x-amz-grant-*}). A request that is not a well-formed S3 request is a {@link BadRequestException}.
 *
 * <p>Signatures are AWS SigV4 with an unsigned payload, valid for the 15 minutes S3 allows. Thread
 * safe.
 */
public final class S3RequestSigner {
  private static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
  private static final Set<String> METHODS = Set.of("GET", "HEAD", "PUT", "POST", "DELETE");
  private static final Set<String> READ_METHODS = Set.of("GET", "HEAD");

  /** Query parameters of the single-object requests Iceberg's S3FileIO sends. */
  private static final Set<String> OBJECT_PARAMETERS =
      Set.of("uploads", "uploadId", "partNumber", "x-id", "versionId", "tagging", "attributes");

  /** Query parameters of a listing (ListObjects and ListObjectsV2). */
  private static final Set<String> LIST_PARAMETERS =
      Set.of(
          "list-type",
          "prefix",
          "delimiter",
          "continuation-token",
          "start-after",
          "max-keys",
          "encoding-type",
          "fetch-owner",
          "marker",
          "x-id");

  /** Headers the signer computes itself; a client's values for them are dropped. */
  private static final Set<String> SIGNER_HEADERS =
      Set.of("host", "authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token");

  private static final Pattern AWS_HOST =
      Pattern.compile("^(?:(.+)\\.)?s3(?:[.-][a-z0-9-]+)*\\.amazonaws\\.com(?:\\.cn)?(?::\\d+)?$");

  private final AwsCredentialsProvider credentials;
  private final String region;
  private final String endpointAuthority;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  /**
   * @param credentials the keys requests are signed with
   * @param region the region signatures are scoped to
   * @param endpoint the S3-compatible endpoint the warehouse uses, or null for AWS
   */
  public S3RequestSigner(AwsCredentialsProvider credentials, String region, String endpoint) {
    this.credentials = requireNonNull(credentials, "credentials is null");
    this.region = requireNonNull(region, "region is null");
    this.endpointAuthority = endpoint == null ? null : authority(URI.create(endpoint));
  }

  /** Whether a request of this HTTP method only reads. */
  public static boolean reads(String method) {
    return READ_METHODS.contains(method.toUpperCase(Locale.ROOT));
  }

  /**
   * Signs a request if every object it names lies inside one of {@code locations}.
   *
   * @param locations {@code s3://bucket/prefix} locations the request may reach (a table's
   *     location, data and metadata paths); others are ignored
   * @throws BadRequestException if the request is malformed: no method, URI or provider {@code s3}
   * @throws ForbiddenException if the request reaches anything outside {@code locations}
   */
  public RemoteSignResponse sign(RemoteSignRequest request, List<String> locations) {
    requireNonNull(request, "request is null");
    String method = checkedMethod(request);
    URI uri = checkedUri(request);
    Map<String, List<String>> headers = checkedHeaders(request, method, uri);
    List<Location> allowed = parse(locations);
    S3Object target = target(uri, method);
    Map<String, String> query = query(uri);
    if (!target.key().isEmpty()) {
      checkObjectRequest(method, uri, target, query, allowed);
    } else if (method.equals("GET") && query.containsKey("prefix")) {
      checkListing(uri, target, query, allowed);
    } else if (method.equals("POST") && query.containsKey("delete")) {
      checkMultiDelete(request, uri, target, query, allowed);
    } else {
      throw new ForbiddenException(
          "Refusing to sign %s %s: bucket-level requests are not signed; a table's files lie in %s",
          method, uri, locations);
    }
    return signed(method, uri, headers);
  }

  private RemoteSignResponse signed(String method, URI uri, Map<String, List<String>> headers) {
    SdkHttpRequest.Builder unsigned =
        SdkHttpRequest.builder().uri(uri).method(SdkHttpMethod.fromValue(method));
    headers.forEach(unsigned::putHeader);
    unsigned.putHeader("x-amz-content-sha256", UNSIGNED_PAYLOAD);
    SignedRequest signed;
    try {
      signed = sign(unsigned.build());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Cannot sign %s %s: %s", method, uri, e.getMessage());
    }
    return ImmutableRemoteSignResponse.builder()
        .uri(signed.request().getUri())
        .headers(signed.request().headers())
        .build();
  }

  private SignedRequest sign(SdkHttpRequest unsigned) {
    return signer.sign(
        sign ->
            sign.identity(credentials.resolveCredentials())
                .request(unsigned)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false));
  }

  private static String checkedMethod(RemoteSignRequest request) {
    if (request.provider() != null && !request.provider().equalsIgnoreCase("s3")) {
      throw new BadRequestException(
          "Cannot sign for provider '%s': this server signs S3 requests only", request.provider());
    }
    String method = request.method() == null ? "" : request.method().toUpperCase(Locale.ROOT);
    if (!METHODS.contains(method)) {
      throw new BadRequestException(
          "Cannot sign method '%s': expected one of %s", request.method(), METHODS);
    }
    return method;
  }

  private static URI checkedUri(RemoteSignRequest request) {
    URI uri = request.uri();
    if (uri == null
        || !uri.isAbsolute()
        || !("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
        || uri.getHost() == null
        || uri.getRawUserInfo() != null
        || uri.getRawFragment() != null) {
      throw new BadRequestException(
          "Cannot sign URI '%s': expected an http or https URI with a host, no user or fragment",
          uri);
    }
    return uri;
  }

  private static Map<String, List<String>> checkedHeaders(
      RemoteSignRequest request, String method, URI uri) {
    Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    if (request.headers() != null) {
      for (Map.Entry<String, List<String>> header : request.headers().entrySet()) {
        String name = header.getKey() == null ? "" : header.getKey().toLowerCase(Locale.ROOT);
        if (name.isEmpty()
            || header.getValue() == null
            || header.getValue().stream().anyMatch(java.util.Objects::isNull)) {
          throw new BadRequestException(
              "Cannot sign %s %s: a header without name or value", method, uri);
        }
        if (name.startsWith("x-amz-copy-source")
            || name.equals("x-amz-acl")
            || name.startsWith("x-amz-grant-")) {
          throw new ForbiddenException(
              "Refusing to sign %s %s: header %s is not signed", method, uri, header.getKey());
        }
        if (!SIGNER_HEADERS.contains(name)) {
          headers.put(header.getKey(), List.copyOf(header.getValue()));
        }
      }
    }
    return headers;
  }

  private void checkObjectRequest(
      String method, URI uri, S3Object target, Map<String, String> query, List<Location> allowed) {
    for (String parameter : query.keySet()) {
      if (!OBJECT_PARAMETERS.contains(parameter) && !parameter.startsWith("response-")) {
        throw new ForbiddenException(
            "Refusing to sign %s %s: query parameter '%s' is not signed", method, uri, parameter);
      }
    }
    if (!contains(allowed, target.bucket(), target.key())) {
      throw new ForbiddenException(
          "Refusing to sign %s %s: s3://%s/%s lies outside the table's locations %s",
          method, uri, target.bucket(), target.key(), allowed);
    }
  }

  private void checkListing(
      URI uri, S3Object target, Map<String, String> query, List<Location> allowed) {
    for (String parameter : query.keySet()) {
      if (!LIST_PARAMETERS.contains(parameter)) {
        throw new ForbiddenException(
            "Refusing to sign GET %s: query parameter '%s' is not signed", uri, parameter);
      }
    }
    String prefix = query.get("prefix");
    if (!contains(allowed, target.bucket(), prefix)) {
      throw new ForbiddenException(
          "Refusing to sign GET %s: listing prefix s3://%s/%s lies outside the table's locations"
              + " %s (a listing names a location with its trailing /)",
          uri, target.bucket(), prefix, allowed);
    }
  }

  private void checkMultiDelete(
      RemoteSignRequest request,
      URI uri,
      S3Object target,
      Map<String, String> query,
      List<Location> allowed) {
    if (query.size() != 1 && !(query.size() == 2 && query.containsKey("x-id"))) {
      throw new ForbiddenException(
          "Refusing to sign POST %s: only ?delete is signed on a bucket", uri);
    }
    if (request.body() == null || request.body().isEmpty()) {
      throw new ForbiddenException(
          "Refusing to sign POST %s: a multi-object delete is signed only with its body", uri);
    }
    for (String key : deletedKeys(request.body(), uri)) {
      if (!contains(allowed, target.bucket(), key)) {
        throw new ForbiddenException(
            "Refusing to sign POST %s: deleting s3://%s/%s, outside the table's locations %s",
            uri, target.bucket(), key, allowed);
      }
    }
  }

  /** The keys of a DeleteObjects body; external entities and DTDs are refused. */
  private static List<String> deletedKeys(String body, URI uri) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setXIncludeAware(false);
      factory.setExpandEntityReferences(false);
      factory.setNamespaceAware(true);
      NodeList keys =
          factory
              .newDocumentBuilder()
              .parse(new ByteArrayInputStream(body.getBytes(UTF_8)))
              .getElementsByTagNameNS("*", "Key");
      List<String> result = new ArrayList<>();
      for (int i = 0; i < keys.getLength(); i++) {
        result.add(keys.item(i).getTextContent());
      }
      if (result.isEmpty()) {
        throw new BadRequestException("Cannot sign POST %s: the delete body names no key", uri);
      }
      return result;
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new BadRequestException(
          "Cannot sign POST %s: the delete body is not a DeleteObjects document: %s",
          uri, e.getMessage());
    }
  }

  /** Whether {@code key} (an object key or a listing prefix) lies inside one of the locations. */
  private static boolean contains(List<Location> allowed, String bucket, String key) {
    if (hasDotSegment(key)) {
      return false;
    }
    for (Location location : allowed) {
      if (location.bucket().equals(bucket)
          && (location.prefix().isEmpty() || key.startsWith(location.prefix() + "/"))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasDotSegment(String key) {
    for (String segment : key.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return true;
      }
    }
    return false;
  }

  /** The bucket and key a request addresses, path-style or virtual-host style. */
  private S3Object target(URI uri, String method) {
    String authority = authority(uri);
    String path = uri.getPath() == null ? "" : uri.getPath();
    String bucket;
    String key;
    if (endpointAuthority != null) {
      if (authority.equals(endpointAuthority)) {
        bucket = null;
      } else if (authority.endsWith("." + endpointAuthority)) {
        bucket = authority.substring(0, authority.length() - endpointAuthority.length() - 1);
      } else {
        throw new ForbiddenException(
            "Refusing to sign %s %s: the warehouse's S3 endpoint is %s",
            method, uri, endpointAuthority);
      }
    } else {
      Matcher matcher = AWS_HOST.matcher(authority);
      if (!matcher.matches()) {
        throw new ForbiddenException("Refusing to sign %s %s: not an AWS S3 endpoint", method, uri);
      }
      bucket = matcher.group(1);
    }
    String rest = path.startsWith("/") ? path.substring(1) : path;
    if (bucket == null) {
      int slash = rest.indexOf('/');
      bucket = slash < 0 ? rest : rest.substring(0, slash);
      key = slash < 0 ? "" : rest.substring(slash + 1);
    } else {
      key = rest;
    }
    if (bucket.isEmpty()) {
      throw new ForbiddenException("Refusing to sign %s %s: it names no bucket", method, uri);
    }
    return new S3Object(bucket, key);
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> query = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name = decode(equals < 0 ? pair : pair.substring(0, equals), uri);
      String value = equals < 0 ? "" : decode(pair.substring(equals + 1), uri);
      if (query.put(name, value) != null) {
        throw new BadRequestException("Cannot sign %s: query parameter '%s' repeats", uri, name);
      }
    }
    return query;
  }

  private static String decode(String text, URI uri) {
    try {
      return URLDecoder.decode(text, UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Cannot sign %s: malformed query: %s", uri, e.getMessage());
    }
  }

  private static String authority(URI uri) {
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    return uri.getPort() < 0 ? host : host + ":" + uri.getPort();
  }

  private static List<Location> parse(List<String> locations) {
    List<Location> parsed = new ArrayList<>();
    for (String location : locations) {
      String rest;
      if (location.startsWith("s3://")) {
        rest = location.substring("s3://".length());
      } else if (location.startsWith("s3a://")) {
        rest = location.substring("s3a://".length());
      } else {
        continue;
      }
      int slash = rest.indexOf('/');
      String bucket = slash < 0 ? rest : rest.substring(0, slash);
      String prefix = slash < 0 ? "" : rest.substring(slash + 1);
      while (prefix.endsWith("/")) {
        prefix = prefix.substring(0, prefix.length() - 1);
      }
      if (!bucket.isEmpty()) {
        parsed.add(new Location(bucket, prefix));
      }
    }
    return parsed;
  }

  private record S3Object(String bucket, String key) {}

  private record Location(String bucket, String prefix) {
    @Override
    public String toString() {
      return "s3://" + bucket + "/" + prefix;
    }
  }
}
