package io.lakestream.client.rpc;

/**
 * The requests of the stream RPC. A key's number never changes meaning; a new request gets a new
 * number. Each request body starts at version 0; a server answers a version it does not know with
 * {@link ErrorCode#UNSUPPORTED_VERSION}.
 */
public enum ApiKey {
  /** Bearer token in, principal out; later requests on the connection act for that principal. */
  AUTHENTICATE(0, 0),
  /** Table path in; table id, kind, buckets and schema out. Version 1 adds the partition fields. */
  METADATA(1, 1),
  /**
   * Append one encoded batch to a bucket; acknowledged once durable. Version 1 names the partition.
   */
  PRODUCE(2, 1),
  /**
   * Read batches of a bucket from an offset, optionally waiting for new data. Version 1 names the
   * partition.
   */
  FETCH(3, 1),
  /** Earliest, latest or by-timestamp offset of a bucket. Version 1 names the partition. */
  LIST_OFFSETS(4, 1),
  /** Creates a namespace in a warehouse. */
  CREATE_NAMESPACE(5, 0),
  /** Creates a table from an Iceberg schema, partition spec and properties; table id out. */
  CREATE_TABLE(6, 0),
  /** Drops a table and, for a streaming table, its stream data. */
  DROP_TABLE(7, 0),
  /** The names of a namespace's tables. */
  LIST_TABLES(8, 0),
  /** The partitions a partitioned table has. */
  LIST_PARTITIONS(9, 0),
  /**
   * Upserts, deletes or partially updates rows of a primary-key table's bucket; acknowledged once
   * their changelog is durable.
   */
  PUT_KV(10, 0),
  /** Rows of a primary-key table's bucket by full primary key. */
  LOOKUP(11, 0),
  /** Rows of a primary-key table's bucket by a bucket-key prefix of the primary key. */
  PREFIX_LOOKUP(12, 0),
  /**
   * Pages of every row of a primary-key table's bucket, from one consistent snapshot tied to a log
   * offset.
   */
  SCAN_KV(13, 0),
  /**
   * A table (streaming or not) as the catalog holds it: id, schema, partition spec, properties and
   * the offsets its lake table holds; {@link ErrorCode#UNKNOWN_TABLE} when there is none.
   */
  DESCRIBE_TABLE(14, 0);

  private final short id;
  private final short latestVersion;

  ApiKey(int id, int latestVersion) {
    this.id = (short) id;
    this.latestVersion = (short) latestVersion;
  }

  /**
   * The request's number on the wire.
   *
   * @return the number, which never changes meaning
   */
  public short id() {
    return id;
  }

  /**
   * The newest version of the request body this build writes and reads.
   *
   * @return the version
   */
  public short latestVersion() {
    return latestVersion;
  }

  /**
   * The key with a wire number, or null if this build does not know it.
   *
   * @param id a number read from a request frame
   * @return the key, or null
   */
  public static ApiKey forId(short id) {
    for (ApiKey key : values()) {
      if (key.id == id) {
        return key;
      }
    }
    return null;
  }
}
