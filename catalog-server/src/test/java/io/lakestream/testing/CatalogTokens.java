package io.lakestream.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Tokens from a test server's OAuth2 token endpoint. */
public final class CatalogTokens {
  private CatalogTokens() {}

  /**
   * A bearer token for a client through the client-credentials grant, failing the test unless the
   * endpoint answers 200.
   *
   * @param base the server's base URI, such as {@code http://127.0.0.1:8181}
   */
  public static String clientCredentials(String base, String client, String secret)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/v1/oauth/tokens"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "grant_type=client_credentials&client_id="
                                + client
                                + "&client_secret="
                                + secret))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");
  }
}
