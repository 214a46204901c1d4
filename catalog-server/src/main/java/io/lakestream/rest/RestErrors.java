package io.lakestream.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.lakestream.catalog.NoSuchWarehouseException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from exceptions to HTTP status codes and Iceberg {@link ErrorResponse} bodies.
 *
 * <p>The {@code type} of each error is the simple name of the Iceberg exception the Java client
 * rebuilds from it, so a client can tell a missing namespace from a missing table. A client's
 * mistake is always a 4xx; 5xx is reserved for faults of the server and for commits whose outcome
 * is unknown (where Iceberg clients must not retry blindly).
 */
public final class RestErrors {
  private static final Logger LOG = LoggerFactory.getLogger(RestErrors.class);

  private RestErrors() {}

  /** The error response for an exception thrown while serving a request. */
  public static ErrorResponse toErrorResponse(Throwable error) {
    int status = status(error);
    String type = type(error, status);
    String message = status == 400 ? clientMessage(error) : error.getMessage();
    if (status == 500 && !(error instanceof CommitStateUnknownException)) {
      LOG.error("Request failed with an unexpected error", error);
      message = "Internal server error (" + error.getClass().getSimpleName() + "); see server log";
    }
    return ErrorResponse.builder()
        .responseCode(status)
        .withType(type)
        .withMessage(message == null ? type : message)
        .build();
  }

  /** An error response for a status the HTTP layer decides on its own (404, 405, 413, ...). */
  public static ErrorResponse error(int status, String type, String message) {
    return ErrorResponse.builder().responseCode(status).withType(type).withMessage(message).build();
  }

  static int status(Throwable error) {
    if (error instanceof BadRequestException
        || error instanceof ValidationException
        || error instanceof IllegalArgumentException
        || error instanceof JsonProcessingException
        || error instanceof NullPointerException && isRequestValidation(error)) {
      return 400;
    }
    if (error instanceof NotAuthorizedException) {
      return 401;
    }
    if (error instanceof ForbiddenException) {
      return 403;
    }
    if (error instanceof NoSuchNamespaceException
        || error instanceof NoSuchTableException
        || error instanceof NoSuchViewException
        || error instanceof NoSuchWarehouseException
        || error instanceof NotFoundException) {
      return 404;
    }
    if (error instanceof RestRouter.MethodNotAllowedException) {
      return 405;
    }
    if (error instanceof UnsupportedOperationException) {
      return 406;
    }
    if (error instanceof AlreadyExistsException
        || error instanceof CommitFailedException
        || error instanceof NamespaceNotEmptyException) {
      return 409;
    }
    if (error instanceof ServiceUnavailableException) {
      return 503;
    }
    if (isApplyingRequest(error)) {
      return 400;
    }
    return 500;
  }

  /**
   * Whether the error was thrown by Iceberg code that Iceberg's REST handlers ({@code
   * CatalogHandlers}) called directly, with no Lakestream code in between: code that applies the
   * request to the current metadata (a commit's updates, a view version) and builds the metadata it
   * describes. Iceberg's builders check the request as they go, some with exceptions that name no
   * condition: an unknown spec id in {@code set-default-spec} is a NullPointerException, removing
   * every snapshot a NoSuchElementException. Failures of the catalog itself pass through
   * Lakestream's table operations and store, so they stay 5xx.
   */
  private static boolean isApplyingRequest(Throwable error) {
    if (!(error instanceof RuntimeException)
        || error instanceof CommitStateUnknownException
        || error instanceof ServiceUnavailableException) {
      return false;
    }
    for (StackTraceElement frame : error.getStackTrace()) {
      String className = frame.getClassName();
      if (className.startsWith("io.lakestream.")) {
        return false;
      }
      if (className.equals("org.apache.iceberg.rest.CatalogHandlers")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The message of a 400 the request's own content caused: the exception's message when its type
   * names the condition, else its type too, as a NullPointerException's message alone misleads.
   */
  private static String clientMessage(Throwable error) {
    boolean named =
        error instanceof BadRequestException
            || error instanceof ValidationException
            || error instanceof IllegalArgumentException
            || error instanceof JsonProcessingException;
    if (named || error.getMessage() == null) {
      return error.getMessage();
    }
    return "Invalid request: " + error;
  }

  private static String type(Throwable error, int status) {
    if (status == 400) {
      if (error instanceof ValidationException) {
        return "ValidationException";
      }
      // Iceberg's client rethrows a 400 of this type as an IllegalArgumentException, the
      // exception its callers catch for invalid arguments (e.g. an invalid view version).
      if (error instanceof IllegalArgumentException) {
        return "IllegalArgumentException";
      }
      return "BadRequestException";
    }
    if (status == 405) {
      return "MethodNotAllowed";
    }
    if (status == 406) {
      return "UnsupportedOperationException";
    }
    if (status == 500 && !(error instanceof CommitStateUnknownException)) {
      return "InternalServerError";
    }
    return error.getClass().getSimpleName();
  }

  /**
   * Iceberg's request classes report a missing required field with a NullPointerException thrown
   * from their {@code validate()} or from a parser; those are a client's mistake.
   */
  private static boolean isRequestValidation(Throwable error) {
    for (StackTraceElement frame : error.getStackTrace()) {
      String className = frame.getClassName();
      if (className.startsWith("org.apache.iceberg.rest.requests.")
          || className.endsWith("Parser")
          || frame.getMethodName().equals("validate")) {
        return true;
      }
      if (className.startsWith("io.lakestream.")) {
        return false;
      }
    }
    return false;
  }
}
