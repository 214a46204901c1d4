package io.lakestream.flight.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SandboxedDatabases}: a database read only the files linked for the query using it, comes
 * back to the next query empty, and is not used again when it cannot be emptied.
 */
class SandboxedDatabasesTest {
  @TempDir Path directory;

  private Path lake;
  private Path other;

  private static Properties settings() {
    Properties settings = new Properties();
    settings.setProperty("threads", "1");
    settings.setProperty("memory_limit", "64MB");
    return settings;
  }

  @BeforeEach
  void writeFiles() throws SQLException {
    lake = directory.resolve("lake.parquet");
    other = directory.resolve("other.parquet");
    try (Connection writer = DriverManager.getConnection("jdbc:duckdb:");
        Statement statement = writer.createStatement()) {
      statement.execute(
          "COPY (SELECT range AS id FROM range(10)) TO '" + lake + "' (FORMAT parquet)");
      statement.execute(
          "COPY (SELECT range AS id FROM range(3)) TO '" + other + "' (FORMAT parquet)");
    }
  }

  /** Databases as the engine keeps them, {@code kept} of them idle at most. */
  private SandboxedDatabases kept(int kept) {
    return new SandboxedDatabases(
        settings(), directory.resolve("sandboxes"), directory.resolve("spill"), kept);
  }

  private static long single(Connection database, String sql) throws SQLException {
    try (Statement statement = database.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getLong(1);
    }
  }

  /** Asserts that the database holds no table, view, schema or attached database of a query. */
  private static void assertHoldsNothing(Connection database) throws SQLException {
    assertThat(single(database, "SELECT count(*) FROM duckdb_tables()")).isZero();
    assertThat(single(database, "SELECT count(*) FROM duckdb_views() WHERE NOT internal")).isZero();
    assertThat(single(database, "SELECT count(*) FROM duckdb_schemas() WHERE NOT internal"))
        .isZero();
    assertThat(single(database, "SELECT count(*) FROM duckdb_databases() WHERE NOT internal"))
        .isEqualTo(1);
  }

  private static void execute(Connection database, String sql) throws SQLException {
    try (Statement statement = database.createStatement()) {
      statement.execute(sql);
    }
  }

  @Test
  void aQueryReadsItsLinkedFilesAndNothingElse() throws SQLException {
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take()) {
      Connection database = sandbox.connection();
      String linked = sandbox.link(lake.toString());
      assertThat(Path.of(linked)).isNotEqualTo(lake);
      assertThat(single(database, "SELECT sum(id) FROM read_parquet('" + linked + "')"))
          .isEqualTo(45);
      for (String outside :
          List.of(
              "read_parquet('" + lake + "')",
              "read_parquet('" + other + "')",
              "read_parquet('" + Path.of(linked).getParent() + "/../../other.parquet')",
              "read_csv('/etc/passwd')")) {
        assertThatThrownBy(() -> single(database, "SELECT count(*) FROM " + outside))
            .as(outside)
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("disabled by configuration");
      }
      assertThatThrownBy(() -> execute(database, "SET enable_external_access = true"))
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> execute(database, "SET threads = 2"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("locked");
    }
  }

  @Test
  void theNextQueryFindsTheDatabaseEmptyAndThePreviousFilesGone() throws Exception {
    try (SandboxedDatabases databases = kept(1)) {
      Connection first;
      String linked;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        linked = sandbox.link(lake.toString());
        execute(first, "ATTACH ':memory:' AS elsewhere");
        execute(first, "CREATE SCHEMA elsewhere.s; CREATE TABLE elsewhere.s.t (x INTEGER)");
        execute(first, "CREATE SCHEMA tpch");
        execute(first, "CREATE VIEW tpch.lineitem AS SELECT * FROM read_parquet('" + linked + "')");
        execute(first, "CREATE TABLE main.tail (x INTEGER); INSERT INTO main.tail VALUES (1)");
        execute(first, "CREATE TEMP VIEW rows_1 AS SELECT 1 AS x");
        execute(first, "CREATE VIEW main.v AS SELECT * FROM main.tail");
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        Connection second = sandbox.connection();
        assertThat(second).as("the kept database is lent again").isSameAs(first);
        assertThat(Files.exists(Path.of(linked))).isFalse();
        assertHoldsNothing(second);
        // The same names can be created again, over other files.
        String again = sandbox.link(other.toString());
        execute(second, "CREATE SCHEMA tpch");
        execute(second, "CREATE VIEW tpch.lineitem AS SELECT * FROM read_parquet('" + again + "')");
        assertThat(single(second, "SELECT count(*) FROM tpch.lineitem")).isEqualTo(3);
        assertThatThrownBy(
                () -> single(second, "SELECT count(*) FROM read_parquet('" + linked + "')"))
            .isInstanceOf(SQLException.class);
      }
    }
  }

  @Test
  void everyKindOfQueryDatabaseHasTheCatalogNameSetUpsUse() throws SQLException {
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take();
        SpareDatabases spares =
            new SpareDatabases(new Properties(), 1, directory.resolve("spares"));
        SpareDatabases.Spare spare = spares.take()) {
      for (Connection database : List.of(sandbox.connection(), spare.connection())) {
        try (Statement statement = database.createStatement();
            ResultSet current = statement.executeQuery("SELECT current_database()")) {
          current.next();
          assertThat(current.getString(1)).isEqualTo(QueryDatabases.DATABASE);
        }
      }
    }
  }

  @Test
  void concurrentQueriesGetSeparateDatabases() throws SQLException {
    List<SandboxedDatabases.Sandbox> taken = new ArrayList<>();
    try (SandboxedDatabases databases = kept(2)) {
      for (int i = 0; i < 3; i++) {
        taken.add(databases.take());
      }
      execute(taken.get(0).connection(), "CREATE TABLE only_in_first (x INTEGER)");
      String linked = taken.get(0).link(lake.toString());
      for (SandboxedDatabases.Sandbox other : taken.subList(1, 3)) {
        assertThat(other.connection()).isNotSameAs(taken.get(0).connection());
        assertThat(single(other.connection(), "SELECT count(*) FROM duckdb_tables()")).isZero();
        assertThatThrownBy(
                () ->
                    single(
                        other.connection(), "SELECT count(*) FROM read_parquet('" + linked + "')"))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("disabled by configuration");
      }
    } finally {
      taken.forEach(SandboxedDatabases.Sandbox::close);
    }
  }

  @Test
  void aDatabaseThatCannotBeEmptiedIsClosed() throws SQLException {
    try (SandboxedDatabases databases = kept(1)) {
      Connection first;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        first.close(); // emptying it fails
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).isNotSameAs(first);
        assertThat(sandbox.connection().isClosed()).isFalse();
        assertThat(single(sandbox.connection(), "SELECT 42")).isEqualTo(42);
      }
    }
  }

  @Test
  void aFileThatCannotBeLinkedFailsWithALinkException() throws SQLException {
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take()) {
      assertThatThrownBy(() -> sandbox.link(directory.resolve("missing.parquet").toString()))
          .isInstanceOf(SandboxedDatabases.LinkException.class)
          .hasMessageContaining("missing.parquet");
    }
  }

  @Test
  void eachDatabaseSpillsWhereNoOtherCanRead() throws Exception {
    Path spill = directory.resolve("spill");
    Properties streaming = settings();
    streaming.setProperty("jdbc_stream_results", "true"); // as queries run
    try (SandboxedDatabases databases =
        new SandboxedDatabases(streaming, directory.resolve("sandboxes"), spill, 2)) {
      SandboxedDatabases.Sandbox first = databases.take();
      SandboxedDatabases.Sandbox second = databases.take();
      try (first;
          second) {
        String firstSpill = text(first.connection(), "SELECT current_setting('temp_directory')");
        String secondSpill = text(second.connection(), "SELECT current_setting('temp_directory')");
        assertThat(firstSpill).startsWith(spill.toString()).isNotEqualTo(secondSpill);
        assertThat(secondSpill).startsWith(spill.toString());
        // The first database sorts more than its memory limit and spills, while the second,
        // with no SQL check in the way, tries to list and read what it spilled.
        try (Statement sorting = first.connection().createStatement();
            ResultSet sorted =
                sorting.executeQuery(
                    "SELECT range, md5(range::VARCHAR) AS h FROM range(3000000) ORDER BY h")) {
          assertThat(sorted.next()).isTrue();
          try (java.util.stream.Stream<Path> spilled = Files.list(Path.of(firstSpill))) {
            assertThat(spilled.filter(file -> file.toFile().length() > 0).count())
                .as("the sort spilled")
                .isPositive();
          }
          for (String probe :
              List.of(
                  "SELECT count(*) FROM glob('" + firstSpill + "/*')",
                  "SELECT count(*) FROM read_blob('" + firstSpill + "/*')",
                  "SELECT count(*) FROM glob('.tmp/*')")) {
            assertThatThrownBy(() -> single(second.connection(), probe))
                .as(probe)
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("Permission Error");
          }
        }
      }
    }
  }

  @Test
  void aFileLinksUnderTheSameNameInEveryQueryOfADatabase() throws Exception {
    try (SandboxedDatabases databases = kept(1)) {
      Connection first;
      String lakeLink;
      String otherLink;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        lakeLink = sandbox.link(lake.toString());
        otherLink = sandbox.link(other.toString());
        assertThat(sandbox.link(lake.toString()))
            .as("linked twice by one query")
            .isEqualTo(lakeLink);
        assertThat(otherLink).isNotEqualTo(lakeLink);
        assertThat(single(first, "SELECT sum(id) FROM read_parquet('" + lakeLink + "')"))
            .isEqualTo(45);
        assertThat(text(first, "SELECT current_setting('parquet_metadata_cache')"))
            .isEqualTo("true");
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).isSameAs(first);
        // Not linked by this query: gone, whatever DuckDB kept of it.
        assertThatThrownBy(
                () ->
                    single(
                        sandbox.connection(),
                        "SELECT sum(id) FROM read_parquet('" + lakeLink + "')"))
            .isInstanceOf(SQLException.class);
        assertThat(sandbox.link(lake.toString())).isEqualTo(lakeLink);
        assertThat(
                single(
                    sandbox.connection(), "SELECT sum(id) FROM read_parquet('" + lakeLink + "')"))
            .isEqualTo(45);
      }
      // A file replaced under its path is read anew, not from what was kept of the old one.
      Path replaced = directory.resolve("replaced.parquet");
      try (Connection writer = DriverManager.getConnection("jdbc:duckdb:");
          Statement statement = writer.createStatement()) {
        statement.execute(
            "COPY (SELECT range AS id FROM range(10)) TO '" + replaced + "' (FORMAT parquet)");
        try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
          String link = sandbox.link(replaced.toString());
          assertThat(
                  single(sandbox.connection(), "SELECT sum(id) FROM read_parquet('" + link + "')"))
              .isEqualTo(45);
        }
        Files.delete(replaced);
        statement.execute(
            "COPY (SELECT range * 2 AS id, range AS extra FROM range(20)) TO '"
                + replaced
                + "' (FORMAT parquet)");
        Files.setLastModifiedTime(
            replaced,
            java.nio.file.attribute.FileTime.from(java.time.Instant.now().plusSeconds(60)));
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        String link = sandbox.link(replaced.toString());
        assertThat(single(sandbox.connection(), "SELECT sum(id) FROM read_parquet('" + link + "')"))
            .isEqualTo(380);
      }
    }
  }

  @Test
  void aDatabaseThatReadManyFilesIsClosedAfterItsQuery() throws Exception {
    try (SandboxedDatabases databases = kept(1)) {
      Connection first;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        for (int i = 0; i < SandboxedDatabases.FILES_PER_DATABASE; i++) {
          Path file = Files.createLink(directory.resolve("file-" + i + ".parquet"), lake);
          sandbox.link(file.toString());
        }
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).as("at the limit: lent again").isSameAs(first);
        sandbox.link(other.toString());
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).as("past the limit: closed").isNotSameAs(first);
        assertThat(first.isClosed()).isTrue();
      }
    }
  }

  @Test
  void aFileWhoseNameTakesTheWholeFileSystemLimitStillLinks() throws Exception {
    // Another engine may name its data files as it likes: 84 three-byte characters are 252 bytes,
    // just within the 255 a file name may have, and with a digest in front a link of the whole
    // name would not fit.
    Path named = directory.resolve("\u20ac".repeat(84));
    Files.copy(lake, named);
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take()) {
      String linked = sandbox.link(named.toString());
      assertThat(
              Path.of(linked)
                  .getFileName()
                  .toString()
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8)
                  .length)
          .isLessThanOrEqualTo(255);
      assertThat(single(sandbox.connection(), "SELECT sum(id) FROM read_parquet('" + linked + "')"))
          .isEqualTo(45);
    }
  }

  @Test
  void aStatementKeptByADatabaseRunsInItsNextQueryWithNewParameters() throws Exception {
    String sql = "SELECT ? * 2";
    PreparedStatement statement;
    try (SandboxedDatabases databases = kept(1)) {
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        statement = sandbox.connection().prepareStatement(sql);
        assertThat(sandbox.kept().keep(sql, statement)).isTrue();
        assertThat(sandbox.kept().keep(sql, sandbox.connection().prepareStatement(sql)))
            .as("a second statement of the same text is the caller's to close")
            .isFalse();
        assertThat(runWith(statement, 20)).isEqualTo(40);
        sandbox.nothing();
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.kept().get(sql)).isSameAs(statement);
        statement.clearParameters();
        assertThat(runWith(statement, 21)).isEqualTo(42);
        assertThat(sandbox.kept().get("SELECT 1")).isNull();
      }
    }
    assertThat(statement.isClosed()).as("closed with its database").isTrue();
  }

  /** DuckDB's driver closes a statement whose execution failed: the next query prepares anew. */
  @Test
  void aKeptStatementThatFailedIsNotLentAgain() throws Exception {
    String sql = "SELECT CAST(? AS INTEGER)";
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take()) {
      PreparedStatement statement = sandbox.connection().prepareStatement(sql);
      assertThat(sandbox.kept().keep(sql, statement)).isTrue();
      statement.setString(1, "not a number");
      assertThatThrownBy(statement::executeQuery).isInstanceOf(SQLException.class);
      assertThat(sandbox.kept().get(sql)).isNull();
      PreparedStatement again = sandbox.connection().prepareStatement(sql);
      assertThat(sandbox.kept().keep(sql, again)).as("kept in its place").isTrue();
      assertThat(runWith(again, 7)).isEqualTo(7);
      sandbox.nothing();
    }
  }

  @Test
  void aDatabaseKeepsItsMostRecentlyUsedStatementsAndClosesTheOthers() throws Exception {
    try (SandboxedDatabases databases = kept(1);
        SandboxedDatabases.Sandbox sandbox = databases.take()) {
      List<PreparedStatement> statements = new ArrayList<>();
      for (int i = 0; i < 17; i++) {
        PreparedStatement statement = sandbox.connection().prepareStatement("SELECT " + i);
        statements.add(statement);
        assertThat(sandbox.kept().keep("SELECT " + i, statement)).isTrue();
        if (i == 15) {
          sandbox.kept().get("SELECT 0"); // used again: the least recently used is now SELECT 1
        }
      }
      assertThat(statements.get(1).isClosed()).isTrue();
      assertThat(sandbox.kept().get("SELECT 1")).isNull();
      assertThat(sandbox.kept().get("SELECT 0")).isSameAs(statements.get(0));
      for (int i : new int[] {0, 2, 16}) {
        assertThat(statements.get(i).isClosed()).isFalse();
      }
      sandbox.nothing();
    }
  }

  private static long runWith(PreparedStatement statement, long parameter) throws SQLException {
    statement.setLong(1, parameter);
    try (ResultSet result = statement.executeQuery()) {
      result.next();
      return result.getLong(1);
    }
  }

  @Test
  void aQueryThatSetUpNothingGivesItsDatabaseBackWithoutItsLinks() throws Exception {
    try (SandboxedDatabases databases = kept(1)) {
      Connection first;
      String linked;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        linked = sandbox.link(lake.toString());
        sandbox.nothing();
        assertThat(single(first, "SELECT 41 + 1")).isEqualTo(42);
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).as("the kept database is lent again").isSameAs(first);
        assertThat(Files.exists(Path.of(linked))).isFalse();
        assertThatThrownBy(
                () -> single(first, "SELECT count(*) FROM read_parquet('" + linked + "')"))
            .isInstanceOf(SQLException.class);
      }
    }
  }

  @Test
  void aQueryWhoseSetUpRecordedWhatItCreatedLeavesNothingBehind() throws Exception {
    try (SandboxedDatabases databases =
        new SandboxedDatabases(
            settings(), directory.resolve("sandboxes"), directory.resolve("spill"), 1, 1_000)) {
      Connection first;
      String linked;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        linked = sandbox.link(lake.toString());
        // What a query's set-up creates, each told before: a database for three-part names, views
        // and tables in schemas of its own and in DuckDB's main, the tail schema, and the view
        // DuckDB reads Arrow rows through.
        sandbox.attach("elsewhere");
        execute(first, "CREATE SCHEMA elsewhere.s; CREATE TABLE elsewhere.s.t (x INTEGER)");
        sandbox.schema("Tpch");
        sandbox.object(true, "Tpch", "lineitem");
        execute(first, "CREATE SCHEMA \"Tpch\"");
        execute(
            first, "CREATE VIEW \"Tpch\".lineitem AS SELECT * FROM read_parquet('" + linked + "')");
        sandbox.schema("MAIN");
        sandbox.object(false, "MAIN", "loaded");
        sandbox.object(true, "main", "viewed");
        execute(first, "CREATE TABLE main.loaded AS SELECT 1 AS x");
        execute(first, "CREATE VIEW main.viewed AS SELECT 2 AS x");
        sandbox.schema(io.lakestream.flight.scan.LakeViews.TAIL_SCHEMA);
        execute(
            first,
            "CREATE SCHEMA lakestream_tail; CREATE TABLE lakestream_tail.t AS SELECT 1 AS x");
        execute(
            first,
            "CREATE TEMP VIEW "
                + io.lakestream.flight.scan.LakeViews.ARROW_ROWS_VIEW
                + " AS SELECT 1 AS x");
        assertThat(single(first, "SELECT count(*) FROM \"Tpch\".lineitem")).isEqualTo(10);
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        Connection second = sandbox.connection();
        assertThat(second).as("the kept database is lent again").isSameAs(first);
        assertThat(Files.exists(Path.of(linked))).isFalse();
        assertHoldsNothing(second);
        // The next query creates the same names again.
        sandbox.attach("elsewhere");
        sandbox.schema("tpch");
        execute(second, "CREATE SCHEMA tpch; CREATE VIEW tpch.lineitem AS SELECT 1 AS x");
        assertThat(single(second, "SELECT count(*) FROM tpch.lineitem")).isEqualTo(1);
      }
      assertThat(databases.searchingAlways()).isFalse();
    }
  }

  @Test
  void aDatabaseHoldingMoreThanItsSetUpRecordedIsCaughtClosedAndEveryLaterOneSearched()
      throws Exception {
    long before = SandboxedDatabases.unrecordedLeftovers();
    try (SandboxedDatabases databases =
        new SandboxedDatabases(
            settings(), directory.resolve("sandboxes"), directory.resolve("spill"), 1, 1)) {
      Connection first;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        sandbox.schema("tpch");
        execute(first, "CREATE SCHEMA tpch; CREATE TABLE main.stray AS SELECT 1 AS x");
      }
      assertThat(first.isClosed()).as("the database that held a stray table is closed").isTrue();
      assertThat(databases.searchingAlways()).isTrue();
      assertThat(SandboxedDatabases.unrecordedLeftovers()).isEqualTo(before + 1);
      Connection second;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        second = sandbox.connection();
        assertThat(second).isNotSameAs(first);
        assertThat(single(second, "SELECT count(*) FROM duckdb_tables()")).isZero();
        sandbox.schema("tpch");
        execute(second, "CREATE TABLE main.stray AS SELECT 1 AS x"); // searched: dropped
      }
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).isSameAs(second);
        assertThat(single(sandbox.connection(), "SELECT count(*) FROM duckdb_tables()")).isZero();
      }
    }
  }

  @ParameterizedTest(name = "set up nothing: {0}")
  @ValueSource(booleans = {true, false})
  void aQueryThatSpilledClosesItsDatabase(boolean setUpNothing) throws Exception {
    Properties streaming = settings();
    streaming.setProperty("jdbc_stream_results", "true"); // as queries run
    try (SandboxedDatabases databases =
        new SandboxedDatabases(
            streaming, directory.resolve("sandboxes"), directory.resolve("spill"), 1)) {
      Connection first;
      String firstSpill;
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        first = sandbox.connection();
        firstSpill = text(first, "SELECT current_setting('temp_directory')");
        if (setUpNothing) {
          sandbox.nothing();
        } else {
          execute(first, "CREATE SCHEMA tpch; CREATE VIEW tpch.v AS SELECT 1 AS x");
        }
        try (Statement sorting = first.createStatement();
            ResultSet sorted =
                sorting.executeQuery(
                    "SELECT range, md5(range::VARCHAR) AS h FROM range(3000000) ORDER BY h")) {
          assertThat(sorted.next()).isTrue();
          try (java.util.stream.Stream<Path> spilled = Files.list(Path.of(firstSpill))) {
            assertThat(spilled.count()).as("the sort spilled").isPositive();
          }
        }
      }
      assertThat(first.isClosed()).as("the database that spilled is closed").isTrue();
      assertThat(Files.exists(Path.of(firstSpill))).isFalse();
      try (SandboxedDatabases.Sandbox sandbox = databases.take()) {
        assertThat(sandbox.connection()).isNotSameAs(first);
        assertThat(single(sandbox.connection(), "SELECT 42")).isEqualTo(42);
      }
    }
  }

  private static String text(Connection database, String sql) throws SQLException {
    try (Statement statement = database.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getString(1);
    }
  }
}
