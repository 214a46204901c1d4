package io.lakestream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.requests.ImmutableRemoteSignRequest;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.responses.RemoteSignResponse;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** What {@link S3RequestSigner} signs and refuses, without a network. */
class S3RequestSignerTest {
  private static final List<String> TABLE =
      List.of("s3://lake/wh/db/t", "s3://lake/wh/db/t/data-elsewhere/");
  private static final StaticCredentialsProvider KEYS =
      StaticCredentialsProvider.create(AwsBasicCredentials.create("AKID", "SECRET"));

  private final S3RequestSigner minio =
      new S3RequestSigner(KEYS, "us-east-1", "http://minio.test:9000");
  private final S3RequestSigner aws = new S3RequestSigner(KEYS, "eu-west-1", null);

  @Test
  void signsTheTablesObjectsWithTheServerKeysAndAnUnsignedPayload() {
    RemoteSignResponse signed =
        minio.sign(
            request(
                "PUT",
                "http://minio.test:9000/lake/wh/db/t/data/a.parquet",
                Map.of(
                    "Content-Length", List.of("10"),
                    "Authorization", List.of("AWS4-HMAC-SHA256 forged"))),
            TABLE);
    assertThat(signed.uri())
        .isEqualTo(URI.create("http://minio.test:9000/lake/wh/db/t/data/a.parquet"));
    assertThat(signed.headers().get("Authorization").get(0))
        .startsWith("AWS4-HMAC-SHA256 Credential=AKID/")
        .contains("/us-east-1/s3/aws4_request")
        .doesNotContain("forged");
    assertThat(signed.headers().get("x-amz-content-sha256")).containsExactly("UNSIGNED-PAYLOAD");
    assertThat(signed.headers().toString()).doesNotContain("SECRET");
  }

  @Test
  void readsVirtualHostAddressesAndAwsEndpoints() {
    minio.sign(request("GET", "http://lake.minio.test:9000/wh/db/t/metadata/v1.json"), TABLE);
    assertThatThrownBy(
            () -> minio.sign(request("GET", "http://other.minio.test:9000/wh/db/t/x"), TABLE))
        .isInstanceOf(ForbiddenException.class);
    aws.sign(request("GET", "https://lake.s3.eu-west-1.amazonaws.com/wh/db/t/x"), TABLE);
    aws.sign(request("GET", "https://s3.eu-west-1.amazonaws.com/lake/wh/db/t/x"), TABLE);
    assertThatThrownBy(() -> aws.sign(request("GET", "https://lake.evil.test/wh/db/t/x"), TABLE))
        .isInstanceOf(ForbiddenException.class);
  }

  @Test
  void refusesEverythingOutsideTheLocations() {
    for (String uri :
        List.of(
            "http://minio.test:9000/lake/wh/db/t2/x",
            "http://minio.test:9000/lake/wh/db/t",
            "http://minio.test:9000/lake/wh/db/t/../u/x",
            "http://minio.test:9000/lake/wh/db/t/%2E%2E/u/x",
            "http://minio.test:9000/other/wh/db/t/x",
            "http://minio.test:9000/lake?list-type=2&prefix=wh/db/",
            "http://minio.test:9000/lake?list-type=2&prefix=wh/db/t",
            "http://minio.test:9000/lake?policy",
            "http://minio.test:9000/lake/wh/db/t/x?acl",
            "http://elsewhere.test:9000/lake/wh/db/t/x")) {
      assertThatThrownBy(() -> minio.sign(request("GET", uri), TABLE))
          .as(uri)
          .isInstanceOf(ForbiddenException.class);
    }
    assertThatThrownBy(
            () ->
                minio.sign(
                    request(
                        "PUT",
                        "http://minio.test:9000/lake/wh/db/t/x",
                        Map.of("x-amz-copy-source", List.of("/lake/wh/db/u/secret"))),
                    TABLE))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("x-amz-copy-source");
    minio.sign(request("GET", "http://minio.test:9000/lake?list-type=2&prefix=wh/db/t/"), TABLE);
    minio.sign(
        request("GET", "http://minio.test:9000/lake/wh/db/t/data-elsewhere/x.parquet"), TABLE);
  }

  @Test
  void signsAMultiObjectDeleteOnlyWhenEveryKeyIsInside() {
    String inside =
        "<Delete><Object><Key>wh/db/t/a</Key></Object><Object><Key>wh/db/t/b</Key></Object></Delete>";
    minio.sign(deleteRequest(inside), TABLE);
    assertThatThrownBy(
            () ->
                minio.sign(
                    deleteRequest(
                        "<Delete><Object><Key>wh/db/t/a</Key></Object>"
                            + "<Object><Key>wh/db/u/b</Key></Object></Delete>"),
                    TABLE))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("wh/db/u/b");
    assertThatThrownBy(() -> minio.sign(deleteRequest(null), TABLE))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(
            () ->
                minio.sign(
                    deleteRequest(
                        "<!DOCTYPE d [<!ENTITY k SYSTEM \"file:///etc/passwd\">]>"
                            + "<Delete><Object><Key>&k;</Key></Object></Delete>"),
                    TABLE))
        .isInstanceOf(BadRequestException.class);
  }

  @Test
  void malformedRequestsAreBadRequests() {
    assertThatThrownBy(
            () -> minio.sign(request("FETCH", "http://minio.test:9000/lake/wh/db/t/x"), TABLE))
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(() -> minio.sign(request("GET", "ftp://minio.test/lake/wh/db/t/x"), TABLE))
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(
            () ->
                minio.sign(
                    request("GET", "http://minio.test:9000/lake?prefix=wh/db/t/&prefix=wh/"),
                    TABLE))
        .isInstanceOf(BadRequestException.class);
  }

  private static RemoteSignRequest request(String method, String uri) {
    return request(method, uri, Map.of());
  }

  private static RemoteSignRequest request(
      String method, String uri, Map<String, List<String>> headers) {
    return ImmutableRemoteSignRequest.builder()
        .region("us-east-1")
        .method(method)
        .uri(URI.create(uri))
        .headers(headers)
        .provider("s3")
        .build();
  }

  private static RemoteSignRequest deleteRequest(String body) {
    ImmutableRemoteSignRequest.Builder request =
        ImmutableRemoteSignRequest.builder()
            .region("us-east-1")
            .method("POST")
            .uri(URI.create("http://minio.test:9000/lake?delete"))
            .headers(Map.of("Content-MD5", List.of("abc")))
            .provider("s3");
    return body == null ? request.build() : request.body(body).build();
  }
}
