package io.lakestream.trino;

import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.spi.TrinoException;
import java.net.ConnectException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.RESTException;
import org.junit.jupiter.api.Test;

/** The mapping of the Iceberg REST client's failures under Trino's wrappers to Trino errors. */
class StreamErrorsTest {
  private static TrinoException wrapped(RuntimeException cause) {
    // As Trino's Iceberg connector reports a catalog it cannot open.
    return new TrinoException(GENERIC_INTERNAL_ERROR, "Cannot obtain metadata", cause);
  }

  @Test
  void expiredTokenUnderTrinosWrapperIsNotAuthenticated() {
    RuntimeException failure =
        StreamErrors.restFailure(wrapped(new NotAuthorizedException("Not authorized: %s", "gone")))
            .orElseThrow();
    TrinoException error = StreamErrors.toTrino("Cannot open the catalog", failure);
    assertThat(error.getErrorCode()).isEqualTo(LakestreamErrorCode.NOT_AUTHENTICATED.toErrorCode());
    assertThat(error.getMessage()).isEqualTo("Cannot open the catalog: Not authorized: gone");
  }

  @Test
  void forbiddenIsNotAuthorized() {
    RuntimeException failure =
        StreamErrors.restFailure(wrapped(new ForbiddenException("Forbidden: %s", "read")))
            .orElseThrow();
    assertThat(StreamErrors.toTrino("Reading", failure).getErrorCode())
        .isEqualTo(LakestreamErrorCode.NOT_AUTHORIZED.toErrorCode());
  }

  @Test
  void unreachableServerNamesTheConnectFailure() {
    RESTException rest =
        new RESTException(
            new ConnectException("Connection refused"),
            "Error occurred while processing %s request",
            "GET");
    TrinoException error =
        StreamErrors.toTrino("Cannot open", StreamErrors.restFailure(wrapped(rest)).orElseThrow());
    assertThat(error.getErrorCode())
        .isEqualTo(LakestreamErrorCode.SERVER_UNAVAILABLE.toErrorCode());
    assertThat(error.getMessage())
        .isEqualTo(
            "Cannot open: Error occurred while processing GET request"
                + " (ConnectException: Connection refused)");
  }

  @Test
  void otherFailuresHaveNoRestCause() {
    assertThat(StreamErrors.restFailure(wrapped(new IllegalStateException("bug")))).isEmpty();
  }
}
