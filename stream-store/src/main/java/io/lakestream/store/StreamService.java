package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.Messages;
import io.lakestream.client.rpc.Messages.AuthenticateRequest;
import io.lakestream.client.rpc.Messages.AuthenticateResponse;
import io.lakestream.client.rpc.Messages.FetchRequest;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.client.rpc.Messages.ListOffsetsRequest;
import io.lakestream.client.rpc.Messages.ListOffsetsResponse;
import io.lakestream.client.rpc.Messages.ListPartitionsRequest;
import io.lakestream.client.rpc.Messages.ListPartitionsResponse;
import io.lakestream.client.rpc.Messages.LookupRequest;
import io.lakestream.client.rpc.Messages.MetadataRequest;
import io.lakestream.client.rpc.Messages.MetadataResponse;
import io.lakestream.client.rpc.Messages.ProduceRequest;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.Messages.PutKvRequest;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.kv.InvalidMutationException;
import io.lakestream.store.kv.KvManager;
import io.lakestream.store.log.AppendResult;
import io.lakestream.store.log.InvalidBatchException;
import io.lakestream.store.log.LogManager;
import io.lakestream.store.log.LogSlice;
import io.lakestream.store.log.LogTablet;
import io.lakestream.store.log.OffsetOutOfRangeException;
import io.lakestream.store.rpc.RequestHandler;
import io.lakestream.store.rpc.ResponseBody;
import io.lakestream.store.rpc.Session;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The stream RPC's requests on top of the {@link LogManager} (and, through {@link KvService}, the
 * primary-key state): decodes a request, checks it at the boundary (access, {@link RequestChecks}
 * for its table, partition and bucket, {@link BatchValidator} for its batch), calls the store and
 * encodes the response. Refusals and store failures become wire errors through {@link RpcErrors}
 * only.
 */
public final class StreamService implements RequestHandler {
  private static final int MAX_WAIT_MILLIS = 30_000;
  // A projected or filtered fetch looks at most this many times maxBytes of stored batches.
  private static final int MAX_EXAMINED_PER_SENT = 16;

  private final LogManager logs;
  private final TableResolver tables;
  private final StreamAccess access;
  private final BatchProjector projector;
  private final TableAdmin admin;
  private final KvService kv;
  private final BufferAllocator allocator = new RootAllocator();
  private final Map<String, Schema> arrowSchemas = new ConcurrentHashMap<>();
  private static final int MAX_CACHED_SCHEMAS = 10_000;

  public StreamService(
      LogManager logs,
      KvManager kvs,
      TableResolver tables,
      StreamAccess access,
      BatchProjector projector,
      TableAdmin admin) {
    this.logs = requireNonNull(logs, "logs is null");
    this.kv = new KvService(logs, requireNonNull(kvs, "kvs is null"));
    this.tables = requireNonNull(tables, "tables is null");
    this.access = requireNonNull(access, "access is null");
    this.projector = requireNonNull(projector, "projector is null");
    this.admin = requireNonNull(admin, "admin is null");
  }

  @Override
  public CompletableFuture<ResponseBody> handle(
      Session session, ApiKey key, short version, ByteBuffer body) {
    try {
      RequestChecks.checkVersion(key, version);
      if (key != ApiKey.AUTHENTICATE
          && access.authenticationRequired()
          && session.principal() == null) {
        throw new NotAuthenticatedException("Authenticate with a bearer token before " + key);
      }
      return switch (key) {
        case AUTHENTICATE -> bytes(authenticate(session, AuthenticateRequest.decode(body)));
        case METADATA ->
            CompletableFuture.completedFuture(
                ResponseBody.of(metadata(session, MetadataRequest.decode(body), version)));
        case PRODUCE -> bytes(produce(session, ProduceRequest.decode(body, version)));
        case FETCH -> fetch(session, FetchRequest.decode(body, version));
        case LIST_OFFSETS ->
            CompletableFuture.completedFuture(
                ResponseBody.of(listOffsets(session, ListOffsetsRequest.decode(body, version))));
        case LIST_PARTITIONS ->
            CompletableFuture.completedFuture(
                ResponseBody.of(listPartitions(session, ListPartitionsRequest.decode(body))));
        case PUT_KV -> bytes(putKv(session, PutKvRequest.decode(body)));
        case SCAN_KV ->
            CompletableFuture.completedFuture(
                ResponseBody.of(scanKv(session, Messages.ScanKvRequest.decode(body))));
        case LOOKUP, PREFIX_LOOKUP ->
            CompletableFuture.completedFuture(
                ResponseBody.of(
                    lookup(session, LookupRequest.decode(body), key == ApiKey.PREFIX_LOOKUP)));
        case CREATE_NAMESPACE, CREATE_TABLE, DROP_TABLE, LIST_TABLES, DESCRIBE_TABLE ->
            CompletableFuture.completedFuture(
                ResponseBody.of(admin.handle(session.principal(), key, body)));
      };
    } catch (RpcException
        | StreamRequestException
        | InvalidBatchException
        | InvalidMutationException e) {
      // Refused by a check of this request: its table, bucket, batch or rows (the store's own
      // refusals are mapped where the store is called, with what was being done).
      return CompletableFuture.failedFuture(RpcErrors.of(e));
    } catch (java.nio.BufferUnderflowException e) {
      return CompletableFuture.failedFuture(RpcErrors.of(e, "Truncated " + key + " request body"));
    } catch (IllegalArgumentException e) {
      // A request field out of range that a decoder or a check below it refused by its contract.
      return CompletableFuture.failedFuture(
          RpcErrors.of(
              new InvalidRequestException("Invalid " + key + " request: " + e.getMessage(), e)));
    }
  }

  private static CompletableFuture<ResponseBody> bytes(CompletableFuture<ByteBuffer> response) {
    return response.thenApply(ResponseBody::of);
  }

  private CompletableFuture<ByteBuffer> authenticate(Session session, AuthenticateRequest request) {
    String principal = access.authenticate(request.token());
    session.authenticated(principal);
    return CompletableFuture.completedFuture(new AuthenticateResponse(principal).encode());
  }

  private ByteBuffer metadata(Session session, MetadataRequest request, short version) {
    // Before the lookup: a principal without read on the namespace learns nothing of which of its
    // tables exist (REST answers such a principal 403 for any name too).
    access.checkNamespace(session.principal(), request.warehouse(), request.namespace(), false);
    StreamTable table =
        tables
            .resolve(request.warehouse(), request.namespace(), request.table())
            .orElseThrow(
                () ->
                    new UnknownTableException(
                        "No stream table "
                            + String.join(".", request.namespace())
                            + "."
                            + request.table()
                            + " (it does not exist or has no lakestream.kind property)"));
    access.check(session.principal(), table, false);
    return new MetadataResponse(
            table.tableId(),
            table.kind(),
            table.buckets(),
            table.currentSchemaId(),
            table.schemaJson(),
            table.arrowSchemas(),
            table.bucketKey(),
            table.partitionFields(),
            table.primaryKey())
        .encode(version);
  }

  private StreamTable table(String tableId) {
    return tables
        .resolveById(tableId)
        .orElseThrow(() -> new UnknownTableException("No stream table with id " + tableId));
  }

  private StreamTable table(String tableId, String partition, int bucket) {
    StreamTable table = table(tableId);
    RequestChecks.checkBucket(table, partition, bucket);
    return table;
  }

  private CompletableFuture<ByteBuffer> produce(Session session, ProduceRequest request) {
    StreamTable table = table(request.tableId(), request.partition(), request.bucket());
    access.check(session.principal(), table, true);
    RequestChecks.requireLogTable(table);
    // The request body is this request's own copy of the frame, so the batch may live in it.
    LogBatch batch =
        BatchValidator.checkHeader(table, request.batch(), logs.config().maxBatchBytes());
    if (!table.schemaIds().contains(batch.schemaId())) {
      // The table may have evolved a moment ago: look again before refusing.
      table = tables.resolveFresh(table.tableId()).orElse(table);
    }
    if (!table.schemaIds().contains(batch.schemaId())) {
      throw new SchemaMismatchException(
          "Table "
              + table.displayName()
              + " has no schema "
              + batch.schemaId()
              + " (current "
              + table.currentSchemaId()
              + ")");
    }
    // Decoded only to be checked: what is stored is the batch as it arrived.
    BatchValidator.checkPayload(table, batch, arrowSchema(table, batch.schemaId()), true, allocator)
        .close();
    if (table.isPartitioned()) {
      RequestChecks.checkPartition(table, batch, request.partition());
    }
    AppendResult result;
    try {
      result = logs.tablet(table.tableId(), request.partition(), request.bucket()).append(batch);
    } catch (InvalidBatchException | IllegalArgumentException e) {
      throw RpcErrors.of(e);
    } catch (IOException | UncheckedIOException e) {
      throw RpcErrors.of(e, "Cannot append to " + table.displayName());
    }
    return result
        .durable()
        .handle(
            (ignored, error) -> {
              if (error != null) {
                throw new CompletionException(RpcErrors.notDurable("batch", error));
              }
              return new ProduceResponse(
                      result.baseOffset(), result.lastOffset(), result.duplicate())
                  .encode();
            });
  }

  /** The Arrow schema of one of a table's schema ids; a schema id never changes meaning. */
  private Schema arrowSchema(StreamTable table, int schemaId) {
    String json = table.arrowSchemas().get(schemaId);
    if (json == null) {
      throw new SchemaMismatchException(
          "Table " + table.displayName() + " has no schema " + schemaId);
    }
    if (arrowSchemas.size() > MAX_CACHED_SCHEMAS) {
      arrowSchemas.clear();
    }
    return arrowSchemas.computeIfAbsent(
        table.tableId() + "/" + schemaId,
        ignored -> {
          try {
            return Schema.fromJSON(json);
          } catch (IOException e) {
            throw new UncheckedIOException(
                "Malformed Arrow schema " + schemaId + " of " + table.displayName(), e);
          }
        });
  }

  private CompletableFuture<ByteBuffer> putKv(Session session, PutKvRequest request) {
    StreamTable table = table(request.tableId(), request.partition(), request.bucket());
    if (request.batch().remaining() >= LogBatch.HEADER_SIZE
        && LogBatch.wrap(request.batch().slice()).schemaId() != table.currentSchemaId()) {
      // The table may have evolved a moment ago: look again before refusing.
      table = tables.resolveFresh(table.tableId()).orElse(table);
    }
    access.check(session.principal(), table, true);
    return kv.put(RequestChecks.requirePrimaryKeyTable(table), request);
  }

  private ByteBuffer scanKv(Session session, Messages.ScanKvRequest request) {
    StreamTable table = table(request.tableId(), request.partition(), request.bucket());
    access.check(session.principal(), table, false);
    return kv.scan(RequestChecks.requirePrimaryKeyTable(table), request);
  }

  private ByteBuffer lookup(Session session, LookupRequest request, boolean prefix) {
    StreamTable table = table(request.tableId(), request.partition(), request.bucket());
    access.check(session.principal(), table, false);
    session.readChecked(table.tableId());
    return kv.lookup(RequestChecks.requirePrimaryKeyTable(table), request, prefix);
  }

  /**
   * A point lookup answered on the network thread: only when the table is in the resolver's cache,
   * the session was lately found allowed to read it (or authentication is off), the bucket's state
   * is open and every key's row (or its absence) is known from the row cache.
   */
  @Override
  public ResponseBody handleInline(Session session, ApiKey key, short version, ByteBuffer body) {
    if (key != ApiKey.LOOKUP || version > key.latestVersion() || version < 0) {
      return null;
    }
    boolean open = !access.authenticationRequired();
    if (!open && session.principal() == null) {
      return null;
    }
    LookupRequest request;
    try {
      request = LookupRequest.decode(body);
    } catch (java.nio.BufferUnderflowException | RpcException e) {
      return null;
    }
    StreamTable table = tables.resolveCachedById(request.tableId()).orElse(null);
    if (table == null || !open && !session.mayRead(table.tableId())) {
      return null;
    }
    ByteBuffer response;
    try {
      RequestChecks.checkBucket(table, request.partition(), request.bucket());
      response = kv.lookupInMemory(RequestChecks.requirePrimaryKeyTable(table), request);
    } catch (StreamRequestException | InvalidMutationException e) {
      throw RpcErrors.of(e);
    }
    return response == null ? null : ResponseBody.of(response);
  }

  /** The tablet a read names; reads never create partitions. */
  private LogTablet existingTablet(StreamTable table, String partition, int bucket) {
    java.util.Optional<LogTablet> tablet;
    try {
      tablet = logs.existingTablet(table.tableId(), partition, bucket);
    } catch (IllegalArgumentException e) {
      throw RpcErrors.of(e);
    }
    return tablet.orElseThrow(
        () ->
            new UnknownPartitionException(
                "Table "
                    + table.displayName()
                    + " has no partition "
                    + partition
                    + " (never written, or expired by retention)"));
  }

  private CompletableFuture<ResponseBody> fetch(Session session, FetchRequest request) {
    StreamTable known = table(request.tableId(), request.partition(), request.bucket());
    // The reader's schema may be newer (a column added a moment ago): look again before refusing.
    StreamTable table =
        projectsBeyond(known, request.projection())
            ? tables.resolveFresh(known.tableId()).orElse(known)
            : known;
    access.check(session.principal(), table, false);
    if (request.maxBytes() <= 0) {
      throw new InvalidRequestException("maxBytes must be positive: " + request.maxBytes());
    }
    LogTablet tablet = existingTablet(table, request.partition(), request.bucket());
    LogSlice first = slice(table, tablet, request);
    int wait = Math.min(request.maxWaitMillis(), MAX_WAIT_MILLIS);
    if (!first.isEmpty() || wait <= 0) {
      return CompletableFuture.completedFuture(respond(table, tablet, request, first));
    }
    return tablet
        .awaitDataAfter(request.offset())
        .completeOnTimeout(null, wait, TimeUnit.MILLISECONDS)
        .thenApply(
            ignored -> {
              try {
                return respond(table, tablet, request, slice(table, tablet, request));
              } catch (StreamRequestException e) {
                throw RpcErrors.of(e);
              }
            });
  }

  /** Whether a projection names a column index past the table's current schema as known here. */
  private static boolean projectsBeyond(StreamTable table, int[] projection) {
    org.apache.iceberg.Schema current = table.schemas().get(table.currentSchemaId());
    if (current == null) {
      return false;
    }
    int columns = current.columns().size();
    for (int column : projection) {
      if (column >= columns) {
        return true;
      }
    }
    return false;
  }

  private LogSlice slice(StreamTable table, LogTablet tablet, FetchRequest request) {
    try {
      return tablet.slice(request.offset(), request.maxBytes());
    } catch (OffsetOutOfRangeException e) {
      throw RpcErrors.of(
          e, "Cannot fetch bucket " + request.bucket() + " of " + table.displayName());
    } catch (UncheckedIOException e) {
      throw RpcErrors.of(e, "Cannot read " + table.displayName());
    }
  }

  /**
   * The fetch response: the batches go out as a range of the segment file when they are sent whole,
   * or as the projector's pieces otherwise.
   */
  private ResponseBody respond(
      StreamTable table, LogTablet tablet, FetchRequest request, LogSlice slice) {
    ResponseBody.Builder batches = ResponseBody.builder();
    long nextOffset = slice.nextOffset();
    if (!slice.isEmpty()) {
      if (request.projection().length == 0 && !request.filter().hasRemaining()) {
        batches.add(slice.channel(), slice.start(), slice.size());
      } else {
        // maxBytes bounds what is sent: keep going while projection and filter shrink the batches
        // so much that the response is still small, up to a bound on what is looked at.
        long examined = 0;
        long examineLimit = (long) request.maxBytes() * MAX_EXAMINED_PER_SENT;
        while (true) {
          try {
            projector.apply(table, slice, request.projection(), request.filter(), batches);
          } catch (RuntimeException e) {
            batches.build().release();
            if (e instanceof UncheckedIOException) {
              throw RpcErrors.of(e, "Cannot read " + table.displayName());
            }
            if (e instanceof InvalidBatchFormatException) {
              throw RpcErrors.of(
                  e,
                  "Cannot read bucket "
                      + request.bucket()
                      + (request.partition().isEmpty()
                          ? ""
                          : " of partition " + request.partition())
                      + " of "
                      + table.displayName());
            }
            throw e;
          }
          examined += slice.size();
          nextOffset = slice.nextOffset();
          if (batches.size() >= request.maxBytes() / 2 || examined >= examineLimit) {
            break;
          }
          LogSlice more;
          try {
            more = tablet.slice(nextOffset, request.maxBytes());
          } catch (OffsetOutOfRangeException e) {
            break; // retention moved the log start; the next fetch reports it
          }
          if (more.isEmpty()) {
            break;
          }
          slice = more;
        }
      }
    }
    if (batches.size() > Integer.MAX_VALUE - 64) {
      throw new InvalidRequestException("Fetch response too large");
    }
    ByteBuffer prefix =
        FetchResponse.encodePrefix(
            tablet.highWatermark(), tablet.logStartOffset(), nextOffset, (int) batches.size());
    return ResponseBody.builder().add(prefix).add(batches.build()).build();
  }

  private ByteBuffer listPartitions(Session session, ListPartitionsRequest request) {
    StreamTable table = table(request.tableId());
    access.check(session.principal(), table, false);
    try {
      return new ListPartitionsResponse(
              table.isPartitioned() ? logs.partitions(table.tableId()) : List.of(""))
          .encode();
    } catch (IOException e) {
      throw RpcErrors.of(e, "Cannot list the partitions of " + table.displayName());
    }
  }

  private ByteBuffer listOffsets(Session session, ListOffsetsRequest request) {
    StreamTable table = table(request.tableId(), request.partition(), request.bucket());
    access.check(session.principal(), table, false);
    LogTablet tablet = existingTablet(table, request.partition(), request.bucket());
    long offset;
    if (request.spec() == Messages.EARLIEST) {
      offset = tablet.logStartOffset();
    } else if (request.spec() == Messages.LATEST) {
      offset = tablet.highWatermark();
    } else if (request.spec() >= 0) {
      offset = tablet.offsetForTimestamp(request.spec());
    } else {
      throw new InvalidRequestException("Invalid offset spec " + request.spec());
    }
    return new ListOffsetsResponse(offset).encode();
  }

  /**
   * Bytes of Arrow memory the stream service (validating and projecting batches) and its
   * primary-key tables hold now.
   */
  public long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory() + kv.arrowAllocatedBytes();
  }
}
