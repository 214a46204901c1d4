package io.lakestream.flight.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.TableReference;
import java.util.List;
import org.junit.jupiter.api.Test;

class InsertStatementTest {
  @Test
  void parsesTheInsertsAdbcAndJdbcSend() {
    assertThat(InsertStatement.parse("INSERT INTO app.events VALUES (?,?,?)"))
        .isEqualTo(new InsertStatement(new TableReference("", "app", "events"), List.of(), 3));
    assertThat(
            InsertStatement.parse(
                "  insert into \"default\".app.\"we\"\"ird\" ( id , \"Name\" )\n values ( ? , ? ) ;"))
        .isEqualTo(
            new InsertStatement(
                new TableReference("default", "app", "we\"ird"), List.of("id", "Name"), 2));
  }

  @Test
  void commentsAreBlanks() {
    assertThat(InsertStatement.parse("INSERT /* bulk */ INTO a.b -- rows\n VALUES (?)"))
        .isEqualTo(new InsertStatement(new TableReference("", "a", "b"), List.of(), 1));
  }

  @Test
  void onlyStatementsStartingWithInsertAreInserts() {
    assertThat(InsertStatement.isInsert(" INSERT INTO a.b VALUES (?)")).isTrue();
    assertThat(InsertStatement.isInsert("insert\tinto a.b VALUES (?)")).isTrue();
    assertThat(InsertStatement.isInsert("SELECT 1")).isFalse();
    assertThat(InsertStatement.isInsert("INSERTS")).isFalse();
  }

  @Test
  void otherShapesAreRefusedSayingWhatIsSupported() {
    assertThatThrownBy(() -> InsertStatement.parse("INSERT INTO a.b SELECT * FROM c.d"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Unsupported INSERT: Expected VALUES with one ? per column")
        .hasMessageContaining("INSERT INTO namespace.table [(column, ...)] VALUES (?, ...)");
    assertThatThrownBy(() -> InsertStatement.parse("INSERT INTO a.b VALUES (1, 2)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Expected '?' in INSERT INTO a.b VALUES (1, 2)");
    assertThatThrownBy(() -> InsertStatement.parse("INSERT INTO events VALUES (?)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("as namespace.table or warehouse.namespace.table: events");
    assertThatThrownBy(() -> InsertStatement.parse("INSERT INTO a.b (x, y) VALUES (?)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("The INSERT names 2 columns but has 1 values");
    assertThatThrownBy(() -> InsertStatement.parse("INSERT INTO a.b VALUES (?); DROP TABLE a.b"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Unexpected text after VALUES (...)");
  }
}
