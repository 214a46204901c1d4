package io.lakestream.catalog;

/** A request named a warehouse that the catalog does not have. */
public final class NoSuchWarehouseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NoSuchWarehouseException(String warehouse) {
    super("Warehouse does not exist: " + warehouse);
  }
}
