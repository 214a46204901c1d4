package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java example ("Log tables from Java"), taken from README.md as it stands, compiled
 * and run against an embedded server: it runs, can run again (no name collides), and leaves no
 * table behind, also when it fails half-way (a failure forced right after its first write).
 */
class ReadmeJavaExampleTest {
  private static final String FORCED = "forced failure half-way";

  @TempDir static Path data;
  @TempDir static Path classes;
  private static EmbeddedLakestream lakestream;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  /** The first Java block after the heading "## Log tables from Java". */
  private static String example() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    int section = readme.indexOf("## Log tables from Java");
    assertThat(section).as("README section").isNotNegative();
    int start = readme.indexOf("```java\n", section) + "```java\n".length();
    int end = readme.indexOf("```", start);
    return readme.substring(start, end);
  }

  /** Compiles the example, with the server's stream port, as {@code name.run()}. */
  private static Class<?> compile(String name, String body) throws Exception {
    String source =
        "import io.lakestream.client.*;\n"
            + "import io.lakestream.client.arrow.BatchFilter;\n"
            + "import io.lakestream.client.rpc.ErrorCode;\n"
            + "import io.lakestream.client.rpc.RpcException;\n"
            + "import java.time.Duration;\n"
            + "import java.util.*;\n"
            + "import org.apache.iceberg.Schema;\n"
            + "import org.apache.iceberg.types.Types;\n"
            + "public class "
            + name
            + " {\n  public static void run() throws Exception {\n"
            + body.replace("9123", Integer.toString(lakestream.server().rpcPort()))
            + "\n  }\n}\n";
    Path file = classes.resolve(name + ".java");
    Files.writeString(file, source, StandardCharsets.UTF_8);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringWriter errors = new StringWriter();
    boolean compiled =
        compiler
            .getTask(
                errors,
                null,
                null,
                List.of(
                    "-classpath",
                    System.getProperty("java.class.path")
                        + File.pathSeparator
                        + System.getProperty("jdk.module.path", ""),
                    "-d",
                    classes.toString()),
                null,
                compiler
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(file))
            .call();
    assertThat(compiled).as("the README example compiles:\n" + errors + "\n" + source).isTrue();
    URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, ReadmeJavaExampleTest.class.getClassLoader());
    return loader.loadClass(name);
  }

  private static void run(Class<?> example) throws Throwable {
    Method run = example.getMethod("run");
    try {
      run.invoke(null);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static List<String> appTables() {
    return lakestream.connection().admin().listTables(null, List.of("app"));
  }

  @Test
  void theExampleRunsTwiceAndLeavesNoTableBehind() throws Throwable {
    Class<?> example = compile("ReadmeExample", example());
    run(example);
    assertThat(appTables()).isEmpty();
    run(example);
    assertThat(appTables()).isEmpty();
  }

  @Test
  void theExampleFailingHalfWayLeavesNoTableBehind() throws Throwable {
    String body = example();
    assertThat(body).contains("writer.flush();");
    Class<?> failing =
        compile(
            "ReadmeExampleFailing",
            body.replace(
                "writer.flush();",
                "writer.flush(); if (true) throw new IllegalStateException(\"" + FORCED + "\");"));
    assertThatThrownBy(() -> run(failing)).hasMessage(FORCED);
    assertThat(appTables()).isEmpty();
  }
}
