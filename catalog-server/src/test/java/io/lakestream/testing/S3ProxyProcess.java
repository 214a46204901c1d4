package io.lakestream.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server (S3Proxy over a local directory) in its own JVM process, started from
 * the jar the build copies to {@code target/s3proxy} (system property {@code s3proxy.jar}).
 */
public final class S3ProxyProcess implements AutoCloseable {
  public static final String ACCESS_KEY = "lakestream-test";
  public static final String SECRET_KEY = "lakestream-test-secret-key";

  private final Process process;
  private final String endpoint;
  private final Path log;

  private S3ProxyProcess(Process process, String endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  public static S3ProxyProcess start(Path directory, Duration timeout)
      throws IOException, InterruptedException {
    String jar = System.getProperty("s3proxy.jar");
    if (jar == null || !Files.exists(Path.of(jar))) {
      throw new IllegalStateException(
          "S3Proxy jar not found (system property s3proxy.jar): " + jar);
    }
    int port = ServerProcess.freePort();
    Path data = Files.createDirectories(directory.resolve("blobs"));
    Path properties = directory.resolve("s3proxy.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + ACCESS_KEY,
            "s3proxy.credential=" + SECRET_KEY,
            "jclouds.provider=filesystem",
            "jclouds.filesystem.basedir=" + data,
            ""));
    Path log = directory.resolve("s3proxy.log");
    Process process =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-jar",
                    jar,
                    "--properties",
                    properties.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    S3ProxyProcess proxy = new S3ProxyProcess(process, "http://127.0.0.1:" + port, log);
    proxy.awaitListening(port, timeout);
    return proxy;
  }

  private void awaitListening(int port, Duration timeout) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("S3Proxy exited: " + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException e) {
        process.waitFor(50, TimeUnit.MILLISECONDS);
      }
    }
    close();
    throw new IllegalStateException(
        "S3Proxy not listening after " + timeout + ": " + Files.readString(log));
  }

  public String endpoint() {
    return endpoint;
  }

  /** An S3 client of this server with its keys, path-style; the caller closes it. */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .httpClient(UrlConnectionHttpClient.create())
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /**
   * Lakestream server settings for a warehouse named {@code lake} at {@code location} (such as
   * {@code s3://bucket/warehouse}) in this server, with its keys.
   */
  public Map<String, String> warehouseSettings(String location) {
    return Map.of(
        "catalog.warehouses", "lake=" + location,
        "s3.endpoint", endpoint,
        "s3.path-style-access", "true",
        "s3.access-key-id", ACCESS_KEY,
        "s3.secret-access-key", SECRET_KEY);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor();
    }
  }
}
