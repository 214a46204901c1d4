package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.junit.jupiter.api.Test;

class RestErrorsTest {
  @Test
  void anIllegalArgumentKeepsItsTypeForIcebergsClient() {
    ErrorResponse response =
        RestErrors.toErrorResponse(new IllegalArgumentException("Invalid view version: x"));
    assertThat(response.code()).isEqualTo(400);
    assertThat(response.type()).isEqualTo("IllegalArgumentException");
    assertThat(response.message()).isEqualTo("Invalid view version: x");

    assertThat(RestErrors.toErrorResponse(new NumberFormatException("x")).type())
        .isEqualTo("IllegalArgumentException");
    assertThat(RestErrors.toErrorResponse(new BadRequestException("bad")).type())
        .isEqualTo("BadRequestException");
  }

  @Test
  void aFailureOfIcebergCodeCalledByItsHandlersIsTheRequestsFault() {
    // What set-default-spec with an unknown spec id throws from TableMetadata.Builder.
    NullPointerException unknownSpec =
        thrownAt(
            new NullPointerException("Cannot read field \"fields\" because \"spec\" is null"),
            "org.apache.iceberg.PartitionSpec",
            "org.apache.iceberg.TableMetadata$Builder",
            "org.apache.iceberg.rest.CatalogHandlers",
            "io.lakestream.rest.IcebergRestHandlers");
    ErrorResponse response = RestErrors.toErrorResponse(unknownSpec);
    assertThat(response.code()).isEqualTo(400);
    assertThat(response.type()).isEqualTo("BadRequestException");
    assertThat(response.message()).contains("NullPointerException").contains("spec");

    // Conditions Iceberg's handlers raise themselves keep their own status.
    assertThat(
            RestErrors.toErrorResponse(
                    thrownAt(
                        new CommitFailedException("Requirement failed"),
                        "org.apache.iceberg.UpdateRequirement$AssertDefaultSpecID",
                        "org.apache.iceberg.rest.CatalogHandlers"))
                .code())
        .isEqualTo(409);
    assertThat(
            RestErrors.toErrorResponse(
                    thrownAt(
                        new NoSuchTableException("Table does not exist: a.b"),
                        "org.apache.iceberg.rest.CatalogHandlers"))
                .code())
        .isEqualTo(404);
  }

  @Test
  void aFailureInsideLakestreamStaysAServerError() {
    NullPointerException bug =
        thrownAt(
            new NullPointerException("oops"),
            "org.apache.iceberg.TableMetadata$Builder",
            "io.lakestream.catalog.StoreTableOperations",
            "org.apache.iceberg.rest.CatalogHandlers");
    ErrorResponse response = RestErrors.toErrorResponse(bug);
    assertThat(response.code()).isEqualTo(500);
    assertThat(response.type()).isEqualTo("InternalServerError");
  }

  private static <T extends Throwable> T thrownAt(T error, String... classes) {
    StackTraceElement[] frames = new StackTraceElement[classes.length];
    for (int i = 0; i < classes.length; i++) {
      frames[i] = new StackTraceElement(classes[i], "method", classes[i] + ".java", 1);
    }
    error.setStackTrace(frames);
    return error;
  }
}
