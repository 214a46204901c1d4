package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Partitioning;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.Messages.LookupRequest;
import io.lakestream.client.rpc.Messages.LookupResponse;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.Messages.PutKvRequest;
import io.lakestream.client.rpc.Messages.ScanKvRequest;
import io.lakestream.client.rpc.Messages.ScanKvResponse;
import io.lakestream.client.rpc.RowValues;
import io.lakestream.store.kv.InvalidMutationException;
import io.lakestream.store.kv.KvBuckets;
import io.lakestream.store.kv.KvBuckets.EncodedRows;
import io.lakestream.store.kv.KvManager;
import io.lakestream.store.kv.KvScan;
import io.lakestream.store.kv.KvSnapshotScans;
import io.lakestream.store.kv.KvTableDefinition;
import io.lakestream.store.kv.KvTablet;
import io.lakestream.store.kv.MergeEngines;
import io.lakestream.store.kv.Mutation;
import io.lakestream.store.kv.RowCodec;
import io.lakestream.store.log.AppendResult;
import io.lakestream.store.log.InvalidBatchException;
import io.lakestream.store.log.LogManager;
import io.lakestream.store.log.LogTablet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The PUT_KV, LOOKUP, PREFIX_LOOKUP and SCAN_KV requests of primary-key tables: decodes a request's
 * rows and keys, calls the store ({@link KvBuckets} for the write protocol and recovery, {@link
 * KvTablet} for reads) and encodes the response; store failures become wire errors through {@link
 * RpcErrors}.
 */
final class KvService {
  private final LogManager logs;
  private final KvManager kvs;
  private final KvBuckets buckets;
  private final BufferAllocator allocator = new RootAllocator();
  private final KvSnapshotScans scans = new KvSnapshotScans();

  KvService(LogManager logs, KvManager kvs) {
    this.logs = requireNonNull(logs, "logs is null");
    this.kvs = requireNonNull(kvs, "kvs is null");
    this.buckets = new KvBuckets(kvs);
  }

  /** Parsed row schemas by table id and schema id; a schema id never changes meaning. */
  private final Map<String, Schema> rowSchemas = new ConcurrentHashMap<>();

  /** The schema rows are written and looked up in: the changelog schema without its last column. */
  Schema rowSchema(StreamTable table, int schemaId) {
    String json = table.arrowSchemas().get(schemaId);
    if (json == null) {
      throw new SchemaMismatchException(
          "Table " + table.displayName() + " has no schema " + schemaId);
    }
    if (rowSchemas.size() > 10_000) {
      rowSchemas.clear();
    }
    return rowSchemas.computeIfAbsent(
        table.tableId() + "/" + schemaId,
        ignored -> {
          try {
            List<Field> fields = Schema.fromJSON(json).getFields();
            return new Schema(fields.subList(0, fields.size() - 1));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private KvTablet tablet(StreamTable table, String partition, int bucket, LogTablet log) {
    try {
      return buckets.tablet(
          new KvTableDefinition(
              table.tableId(),
              table.displayName(),
              table.schemas(),
              table.currentSchemaId(),
              table.bucketKey(),
              table.properties()),
          partition,
          bucket,
          log,
          schemaId -> rowSchema(table, schemaId));
    } catch (UncheckedIOException e) {
      throw RpcErrors.of(e, "Cannot open the state of " + table.displayName());
    } catch (InvalidBatchFormatException e) {
      throw RpcErrors.of(e);
    }
  }

  CompletableFuture<ByteBuffer> put(StreamTable table, PutKvRequest request) {
    LogBatch input =
        BatchValidator.checkHeader(table, request.batch(), logs.config().maxBatchBytes());
    if (input.schemaId() != table.currentSchemaId()) {
      throw new SchemaMismatchException(
          "Rows of "
              + table.displayName()
              + " must have the current schema "
              + table.currentSchemaId()
              + ", not "
              + input.schemaId()
              + "; refresh the table");
    }
    Schema schema = rowSchema(table, input.schemaId());
    try (VectorSchemaRoot root =
        BatchValidator.checkPayload(table, input, schema, false, allocator)) {
      return put(table, request, input, schema, root);
    }
  }

  private CompletableFuture<ByteBuffer> put(
      StreamTable table,
      PutKvRequest request,
      LogBatch input,
      Schema schema,
      VectorSchemaRoot root) {
    ByteBuffer ops = request.ops();
    if (ops.remaining() != root.getRowCount()) {
      throw new InvalidRequestException(
          root.getRowCount() + " rows came with " + ops.remaining() + " operations");
    }
    // Rows the direct path cannot take are checked (and refused) before any state is opened.
    boolean direct = directCandidate(table, request, root);
    List<Mutation> mutations = direct ? null : mutations(table, request, input, schema, root);
    LogTablet log;
    try {
      log = logs.tablet(table.tableId(), request.partition(), request.bucket());
    } catch (IllegalArgumentException e) {
      throw RpcErrors.of(e);
    }
    KvTablet kv = tablet(table, request.partition(), request.bucket(), log);
    EncodedRows encoded = direct ? encoded(request, input.schemaId(), root, kv) : null;
    if (direct && encoded == null) {
      mutations = mutations(table, request, input, schema, root);
    }
    int deletes = 0;
    for (int row = 0; row < ops.remaining(); row++) {
      if (ops.get(ops.position() + row) == PutKvRequest.DELETE) {
        deletes++;
      }
    }
    int upserts = ops.remaining() - deletes;
    int deleted = deletes;
    CompletableFuture<AppendResult> written;
    try {
      written = buckets.write(kv, log, input, schema, mutations, encoded);
    } catch (InvalidMutationException | InvalidBatchException e) {
      throw RpcErrors.of(e);
    } catch (IOException | UncheckedIOException e) {
      throw RpcErrors.of(e, "Cannot write to " + table.displayName());
    }
    return written.handle(
        (appended, error) -> {
          if (error != null) {
            throw RpcErrors.failure(error);
          }
          if (!appended.duplicate()) {
            kv.statistics().written(upserts, deleted);
          }
          return new ProduceResponse(
                  appended.baseOffset(), appended.lastOffset(), appended.duplicate())
              .encode();
        });
  }

  /**
   * Whether a request may take the direct path, judged before any state is opened: a table whose
   * merge engine is last-row, not partitioned, whole-row writes of known operations, and no null in
   * a primary-key column. Such rows cannot be refused, so nothing is lost by checking them later.
   */
  private static boolean directCandidate(
      StreamTable table, PutKvRequest request, VectorSchemaRoot root) {
    String engine =
        table.properties().getOrDefault(MergeEngines.MERGE_ENGINE, MergeEngines.LAST_ROW);
    if (!engine.equals(MergeEngines.LAST_ROW)
        || table.isPartitioned()
        || request.targetColumns().length != 0) {
      return false;
    }
    List<FieldVector> keys = new ArrayList<>();
    for (String column : table.primaryKey()) {
      FieldVector vector = root.getVector(column);
      if (vector == null) {
        return false;
      }
      keys.add(vector);
    }
    ByteBuffer ops = request.ops();
    for (int row = 0; row < root.getRowCount(); row++) {
      byte op = ops.get(ops.position() + row);
      if (op != PutKvRequest.UPSERT && op != PutKvRequest.DELETE) {
        return false;
      }
      for (FieldVector key : keys) {
        if (key.isNull(row)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The rows of a {@link #directCandidate} request encoded straight from its vectors, or null when
   * the tablet cannot take them so (its schema is not the request's, its engine not last-row, a
   * column type {@link RowCodec#writesArrow} does not take).
   */
  private static EncodedRows encoded(
      PutKvRequest request, int schemaId, VectorSchemaRoot root, KvTablet kv) {
    RowCodec codec = kv.rowCodec();
    if (!kv.replacesWholeRows() || kv.schema().schemaId() != schemaId || !codec.writesArrow()) {
      return null;
    }
    List<FieldVector> vectors = root.getFieldVectors();
    int[] keyColumns = kv.schema().primaryKey();
    int rowCount = root.getRowCount();
    ByteBuffer ops = request.ops();
    List<byte[]> keys = new ArrayList<>(rowCount);
    byte[][] values = codec.encode(vectors, rowCount);
    Object[] keyRow = new Object[vectors.size()];
    for (int row = 0; row < rowCount; row++) {
      for (int column : keyColumns) {
        keyRow[column] = ArrowValues.get(vectors.get(column), row);
      }
      keys.add(kv.keyCodec().encodeRow(keyRow));
      if (ops.get(ops.position() + row) == PutKvRequest.DELETE) {
        values[row] = null;
      }
    }
    return new EncodedRows(keys, values);
  }

  private List<Mutation> mutations(
      StreamTable table,
      PutKvRequest request,
      LogBatch input,
      Schema schema,
      VectorSchemaRoot root) {
    List<Object[]> rows;
    try {
      rows = ArrowValues.rows(root, schema.getFields().size());
    } catch (IllegalArgumentException e) {
      throw new InvalidBatchException("Unreadable rows: " + e.getMessage());
    }
    return mutations(table, request, input, rows);
  }

  private List<Mutation> mutations(
      StreamTable table, PutKvRequest request, LogBatch input, List<Object[]> rows) {
    ByteBuffer ops = request.ops();
    Partitioning partitioning = table.partitioning().get(input.schemaId());
    List<Mutation> mutations = new ArrayList<>(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Object[] row = rows.get(i);
      byte op = ops.get(ops.position() + i);
      if (table.isPartitioned() && partitioning != null) {
        String partition;
        try {
          partition = partitioning.partitionOf(row);
        } catch (IllegalArgumentException e) {
          throw new InvalidMutationException(e.getMessage());
        }
        if (!partition.equals(request.partition())) {
          throw new InvalidMutationException(
              "Row " + i + " belongs to partition " + partition + ", not " + request.partition());
        }
      }
      try {
        mutations.add(
            switch (op) {
              case PutKvRequest.UPSERT ->
                  request.targetColumns().length == 0
                      ? Mutation.upsert(row)
                      : Mutation.partialUpdate(row, request.targetColumns());
              case PutKvRequest.DELETE -> Mutation.delete(row);
              default -> throw new InvalidRequestException("Unknown operation " + op);
            });
      } catch (IllegalArgumentException e) {
        throw new InvalidMutationException("Row " + i + ": " + e.getMessage());
      }
    }
    return mutations;
  }

  /** LOOKUP and PREFIX_LOOKUP: the durable rows of keys, or of a bucket-key prefix. */
  ByteBuffer lookup(StreamTable table, LookupRequest request, boolean prefix) {
    long started = System.nanoTime();
    Schema schema = rowSchema(table, table.currentSchemaId());
    List<Object[]> keys = lookupKeys(table, schema, request, prefix);
    LogTablet log =
        logs.existingTablet(table.tableId(), request.partition(), request.bucket())
            .orElseThrow(
                () ->
                    new UnknownPartitionException(
                        "Table "
                            + table.displayName()
                            + " has no partition "
                            + request.partition()));
    KvTablet kv = tablet(table, request.partition(), request.bucket(), log);
    ByteBuffer response;
    try {
      if (prefix) {
        if (keys.size() != 1) {
          throw new InvalidRequestException("A prefix lookup takes one prefix");
        }
        List<Object[]> found = kv.prefixLookup(keys.get(0));
        byte[] flags = new byte[found.size()];
        java.util.Arrays.fill(flags, (byte) 1);
        response =
            new LookupResponse(table.currentSchemaId(), flags, encodeRows(schema, found)).encode();
      } else {
        response = lookupResponse(table, schema, kv, kv.lookupValues(keys));
      }
    } catch (IllegalArgumentException e) {
      throw new InvalidMutationException("Invalid key: " + e.getMessage());
    } catch (IOException e) {
      throw RpcErrors.of(e, "Cannot read " + table.displayName());
    }
    kv.statistics().lookedUp(System.nanoTime() - started);
    return response;
  }

  /**
   * A LOOKUP answered from memory alone, as {@link #lookup} would answer it; null when the bucket's
   * state is not open or the row cache does not know every key (see {@link
   * KvTablet#lookupValuesInMemory}). Never blocks.
   */
  ByteBuffer lookupInMemory(StreamTable table, LookupRequest request) {
    long started = System.nanoTime();
    KvTablet kv = kvs.openTablet(table.tableId(), request.partition(), request.bucket());
    if (kv == null) {
      return null;
    }
    Schema schema = rowSchema(table, table.currentSchemaId());
    List<Object[]> keys = lookupKeys(table, schema, request, false);
    List<byte[]> values;
    try {
      values = kv.lookupValuesInMemory(keys);
    } catch (IllegalArgumentException e) {
      throw new InvalidMutationException("Invalid key: " + e.getMessage());
    }
    if (values == null) {
      return null;
    }
    ByteBuffer response = lookupResponse(table, schema, kv, values);
    kv.statistics().lookedUp(System.nanoTime() - started);
    return response;
  }

  private static List<Object[]> lookupKeys(
      StreamTable table, Schema schema, LookupRequest request, boolean prefix) {
    List<String> keyColumns = prefix ? table.bucketKey() : table.primaryKey();
    List<ArrowType> keyTypes = new ArrayList<>();
    for (String column : keyColumns) {
      keyTypes.add(schema.findField(column).getType());
    }
    try {
      return RowValues.decode(request.keys(), keyTypes);
    } catch (RuntimeException e) {
      throw new InvalidRequestException("Malformed keys: " + e.getMessage());
    }
  }

  /** The LOOKUP response of stored values, one per key (null where the key has no row). */
  private static ByteBuffer lookupResponse(
      StreamTable table, Schema schema, KvTablet kv, List<byte[]> values) {
    byte[] flags = new byte[values.size()];
    List<byte[]> present = new ArrayList<>(values.size());
    boolean current = true;
    for (int i = 0; i < values.size(); i++) {
      byte[] value = values.get(i);
      if (value != null) {
        flags[i] = 1;
        present.add(value);
        current &= kv.rowCodec().isCurrent(value);
      }
    }
    if (current
        && kv.rowCodec().writesArrow()
        && kv.schema().schemaId() == table.currentSchemaId()) {
      return new LookupResponse(table.currentSchemaId(), flags, kv.rowCodec().toRowValues(present))
          .encode();
    }
    List<Object[]> found = new ArrayList<>(present.size());
    for (byte[] value : present) {
      found.add(kv.rowCodec().decode(value));
    }
    return new LookupResponse(table.currentSchemaId(), flags, encodeRows(schema, found)).encode();
  }

  private static ByteBuffer encodeRows(Schema schema, List<Object[]> rows) {
    List<ArrowType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Field field : schema.getFields()) {
      types.add(field.getType());
      names.add(field.getName());
    }
    return RowValues.encode(rows, types, names);
  }

  /** SCAN_KV: the next page of a snapshot scan, starting one when the request has no scan id. */
  ByteBuffer scan(StreamTable table, ScanKvRequest request) {
    scans.closeIdle();
    String tabletKey = table.tableId() + "/" + request.partition() + "/" + request.bucket();
    long scanId = request.scanId();
    if (scanId == 0) {
      LogTablet log =
          logs.existingTablet(table.tableId(), request.partition(), request.bucket())
              .orElseThrow(
                  () ->
                      new UnknownPartitionException(
                          "Table "
                              + table.displayName()
                              + " has no partition "
                              + request.partition()));
      KvTablet kv = tablet(table, request.partition(), request.bucket(), log);
      KvScan scan;
      try {
        scan = kv.snapshotScan();
      } catch (IOException e) {
        throw RpcErrors.of(e, "Cannot scan " + table.displayName());
      }
      scanId = scans.register(tabletKey, scan);
    }
    int maxRows = Math.max(1, Math.min(request.maxRows(), 100_000));
    KvSnapshotScans.Page page;
    try {
      page = scans.next(scanId, tabletKey, maxRows);
    } catch (IllegalStateException e) {
      throw new UnknownScanException("The scan was closed: " + e.getMessage());
    }
    if (page == null) {
      throw new UnknownScanException(
          "No snapshot scan " + scanId + " of " + table.displayName() + " is open");
    }
    Schema schema = rowSchema(table, table.currentSchemaId());
    return new ScanKvResponse(
            scanId,
            page.offset(),
            table.currentSchemaId(),
            page.done(),
            encodeRows(schema, page.rows()))
        .encode();
  }

  /** Drops the state of a table. */
  void dropTable(String tableId) throws IOException {
    kvs.dropTable(tableId);
  }

  /** Bytes of Arrow memory this service and its buckets hold now. */
  long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory() + buckets.arrowAllocatedBytes();
  }
}
