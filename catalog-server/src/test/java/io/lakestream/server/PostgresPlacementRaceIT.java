package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.TestingPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes sharing one PostgreSQL catalog race, many times over, to create two tables
 * at overlapping locations (the same directory, or one inside the other): the location rules must
 * hold across processes, so in every round at most one create succeeds and the other gets a 403.
 */
class PostgresPlacementRaceIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final int ROUNDS = 40;
  private static final String SCHEMA =
      "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
          + "{\"id\":1,\"name\":\"id\",\"type\":\"long\",\"required\":true}]}";

  @TempDir Path temp;

  @Test
  void overlappingCreatesOnTwoServersNeverBothSucceed() throws Exception {
    Path warehouse = Files.createDirectories(temp.resolve("warehouse")).toRealPath();
    try (TestingPostgres postgres = TestingPostgres.start();
        ServerProcess first = launch(postgres, "first", warehouse.toUri().toString());
        ServerProcess second = launch(postgres, "second", warehouse.toUri().toString())) {
      first.awaitReady(START_TIMEOUT);
      second.awaitReady(START_TIMEOUT);
      HttpClient http = HttpClient.newHttpClient();
      assertThat(post(http, first, "/v1/namespaces", "{\"namespace\":[\"race\"]}").statusCode())
          .isEqualTo(200);

      ExecutorService executor = Executors.newFixedThreadPool(2);
      try {
        CyclicBarrier start = new CyclicBarrier(2);
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> bothCreated = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
          String location = "file:" + warehouse.resolve("race").resolve("shared-" + round);
          // Even rounds claim the same directory; odd ones a directory and one inside it.
          String inner = round % 2 == 0 ? location : location + "/inner";
          String left = "left_" + round;
          String right = "right_" + round;
          Future<HttpResponse<String>> viaFirst =
              executor.submit(() -> create(http, first, left, location, start));
          Future<HttpResponse<String>> viaSecond =
              executor.submit(() -> create(http, second, right, inner, start));
          int firstStatus = viaFirst.get(60, TimeUnit.SECONDS).statusCode();
          int secondStatus = viaSecond.get(60, TimeUnit.SECONDS).statusCode();
          outcomes.merge(firstStatus + "/" + secondStatus, 1, Integer::sum);
          if (firstStatus == 200 && secondStatus == 200) {
            bothCreated.add(left + "@" + location + " and " + right + "@" + inner);
          }
          assertThat(List.of(firstStatus, secondStatus))
              .as("round %d", round)
              .containsAnyOf(200)
              .allMatch(status -> status == 200 || status == 403);
        }
        System.out.printf(
            "PostgresPlacementRaceIT: %d rounds, statuses first/second: %s%n", ROUNDS, outcomes);
        assertThat(bothCreated).as("overlapping tables both created").isEmpty();
      } finally {
        executor.shutdownNow();
      }
      assertThat(first.terminate(Duration.ofSeconds(30))).isZero();
      assertThat(second.terminate(Duration.ofSeconds(30))).isZero();
    }
  }

  private static HttpResponse<String> create(
      HttpClient http, ServerProcess server, String name, String location, CyclicBarrier start)
      throws Exception {
    String body =
        "{\"name\":\"" + name + "\",\"location\":\"" + location + "\",\"schema\":" + SCHEMA + "}";
    start.await(60, TimeUnit.SECONDS);
    return post(http, server, "/v1/namespaces/race/tables", body);
  }

  private static HttpResponse<String> post(
      HttpClient http, ServerProcess server, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUri() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private ServerProcess launch(TestingPostgres postgres, String name, String warehouse)
      throws Exception {
    return postgres.launchServer(
        temp.resolve("data-" + name), temp.resolve("logs-" + name), warehouse);
  }
}
