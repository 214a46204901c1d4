package io.lakestream.bench.peers.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of Apache Kafka as a peer of Lakestream (issue 37): runs one W1 workload of the
 * benchmarks' {@code PeerWorkload} contract through {@link KafkaProducer} and {@link KafkaConsumer}
 * in a JVM of its own and prints {@code RESULT name=value} lines.
 *
 * <p>Called as {@code KafkaWorkload WORKLOAD key=value...} with the keys {@code pool}, {@code
 * table}, {@code rows}, {@code compression} (the contract's) and {@code bootstrap} (the broker's
 * {@code host:port}); the W2 keys are accepted and ignored. The topic {@code table} has one
 * partition and replication factor 1.
 *
 * <p>Kafka has no schema, so a row is a record value of this compact binary form, big-endian, with
 * no key:
 *
 * <pre>
 *   offset   0: b0..b4  five 8-byte two's complement longs
 *   offset  40: i0..i4  five 4-byte ints
 *   offset  60: d0..d4  five 8-byte IEEE 754 doubles
 *   offset 100: s0..s4  five strings, each its UTF-8 byte length as an unsigned LEB128 varint,
 *                       then the bytes
 * </pre>
 *
 * <p>The pool's 16-24 character ASCII strings make a row 205-245 bytes. Every row is encoded from
 * its Java values at its send, as a user's serializer would. The projected scan fetches whole
 * records, as Kafka has no projection, and decodes only {@code b0} and {@code s0}.
 *
 * <p>Settings: the append uses Kafka's documented throughput settings ({@code acks=all}, {@code
 * batch.size} 1 MiB, {@code linger.ms} 100, {@code compression.type} none or zstd); the scans
 * assign the partition (no consumer group) with 8 MiB fetches per partition and up to 10,000
 * records per poll; the freshness workload uses the producer's and consumer's defaults ({@code
 * acks=all}, {@code linger.ms} 5 in Kafka 4) and a consumer polling from the end of the topic.
 */
public final class KafkaWorkload {
  private static final int NUMERIC_BYTES = 100;
  private static final int BATCH_BYTES = 1024 * 1024;
  private static final int LINGER_MILLIS = 100;
  private static final int FETCH_BYTES_PER_PARTITION = 8 * 1024 * 1024;
  private static final int RECORDS_PER_POLL = 10_000;

  /** Freshness samples sent and discarded before the measured ones: connections, JIT. */
  private static final int FRESHNESS_WARM_UP_SAMPLES = 20;

  /** A scan or a freshness sample fails when nothing arrives for this long. */
  private static final Duration STALL_DEADLINE = Duration.ofSeconds(60);

  private final String bootstrap;
  private final String table;
  private final int rows;
  private final String compression;
  private final Pool pool;

  private KafkaWorkload(Map<String, String> arguments) throws IOException {
    this.bootstrap = required(arguments, "bootstrap");
    this.table = required(arguments, "table");
    this.rows = Integer.parseInt(required(arguments, "rows"));
    this.compression = required(arguments, "compression");
    this.pool = Pool.read(Path.of(required(arguments, "pool")));
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      throw new IllegalArgumentException(
          "Usage: KafkaWorkload W1_APPEND|W1_SCAN|W1_SCAN_PROJECTED|W1_FRESHNESS|DROP key=value...");
    }
    Map<String, String> arguments = new HashMap<>();
    for (String argument : Arrays.asList(args).subList(1, args.length)) {
      int equals = argument.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("Expected key=value, got '" + argument + "'");
      }
      arguments.put(argument.substring(0, equals), argument.substring(equals + 1));
    }
    if (args[0].equals("DROP")) {
      deleteTopic(required(arguments, "bootstrap"), required(arguments, "table"));
      return;
    }
    KafkaWorkload workload = new KafkaWorkload(arguments);
    switch (args[0]) {
      case "W1_APPEND" -> workload.append();
      case "W1_SCAN" -> workload.scan(false);
      case "W1_SCAN_PROJECTED" -> workload.scan(true);
      case "W1_FRESHNESS" -> workload.freshness();
      default -> throw new IllegalArgumentException("Kafka runs no workload " + args[0]);
    }
  }

  private void append() throws Exception {
    createTopic(true);
    Properties properties = producerDefaults();
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(BATCH_BYTES));
    properties.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(LINGER_MILLIS));
    properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    AtomicReference<Exception> failure = new AtomicReference<>();
    long start;
    long end;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties)) {
      start = System.nanoTime();
      for (int n = 0; n < rows; n++) {
        producer.send(
            new ProducerRecord<>(table, pool.encode(n % pool.size())),
            (metadata, exception) -> {
              if (exception != null) {
                failure.compareAndSet(null, exception);
              }
            });
      }
      producer.flush();
      end = System.nanoTime();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("An append to " + table + " failed", failure.get());
    }
    result("rows_per_s", rows / ((end - start) / 1e9));
  }

  private void scan(boolean projected) {
    Properties properties = consumerDefaults();
    properties.put(
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
        Integer.toString(FETCH_BYTES_PER_PARTITION));
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(RECORDS_PER_POLL));
    long checksum = 0;
    long touched = 0;
    int read = 0;
    long start;
    long end;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
      TopicPartition partition = new TopicPartition(table, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      start = System.nanoTime();
      long lastProgress = start;
      while (read < rows) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> record : records) {
          if (read == rows) {
            break;
          }
          if (record.offset() != read) {
            throw new IllegalStateException(
                "Expected offset " + read + " of " + table + ", got " + record.offset());
          }
          ByteBuffer value = ByteBuffer.wrap(record.value());
          long b0 = value.getLong();
          checksum += b0;
          if (projected) {
            value.position(NUMERIC_BYTES);
            String s0 = readString(value);
            checksum += s0.length();
            touched += s0.hashCode();
          } else {
            touched += b0;
            for (int c = 1; c < 5; c++) {
              touched += value.getLong();
            }
            for (int c = 0; c < 5; c++) {
              touched += value.getInt();
            }
            for (int c = 0; c < 5; c++) {
              touched += Double.doubleToRawLongBits(value.getDouble());
            }
            for (int c = 0; c < 5; c++) {
              String s = readString(value);
              checksum += s.length();
              touched += s.hashCode();
            }
          }
          read++;
        }
        long now = System.nanoTime();
        if (!records.isEmpty()) {
          lastProgress = now;
        } else if (now - lastProgress > STALL_DEADLINE.toNanos()) {
          throw new IllegalStateException(
              "Read "
                  + read
                  + " of "
                  + rows
                  + " rows of "
                  + table
                  + "; nothing for "
                  + STALL_DEADLINE);
        }
      }
      end = System.nanoTime();
    }
    System.out.println("values touched: " + touched);
    result("rows_per_s", rows / ((end - start) / 1e9));
    System.out.println("RESULT checksum=" + checksum);
  }

  private void freshness() throws Exception {
    createTopic(false);
    TopicPartition partition = new TopicPartition(table, 0);
    BlockingQueue<Long> seen = new LinkedBlockingQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> readerFailure = new AtomicReference<>();
    int samples = FRESHNESS_WARM_UP_SAMPLES + rows;
    double[] ackToReader = new double[rows];
    double[] sendToReader = new double[rows];
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerDefaults());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerDefaults())) {
      consumer.assign(List.of(partition));
      consumer.seekToEnd(List.of(partition));
      long firstOffset = consumer.position(partition);
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    for (ConsumerRecord<byte[], byte[]> record :
                        consumer.poll(Duration.ofMillis(100))) {
                      seen.add(System.nanoTime());
                    }
                  }
                } catch (Throwable e) {
                  readerFailure.set(e);
                }
              },
              "freshness-reader");
      reader.start();
      try {
        long[] ackNanos = new long[1];
        for (int sample = 0; sample < samples; sample++) {
          long send = System.nanoTime();
          producer
              .send(
                  new ProducerRecord<>(table, pool.encode(sample % pool.size())),
                  (metadata, exception) -> ackNanos[0] = System.nanoTime())
              .get();
          long ack = ackNanos[0];
          Long arrival = seen.poll(STALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
          if (arrival == null) {
            throw new IllegalStateException(
                "The reader of "
                    + table
                    + " (from offset "
                    + firstOffset
                    + ") did not see sample "
                    + sample
                    + " within "
                    + STALL_DEADLINE,
                readerFailure.get());
          }
          int measured = sample - FRESHNESS_WARM_UP_SAMPLES;
          if (measured >= 0) {
            ackToReader[measured] = (arrival - ack) / 1e6;
            sendToReader[measured] = (arrival - send) / 1e6;
          }
        }
      } finally {
        stop.set(true);
        reader.join();
      }
    }
    if (readerFailure.get() != null) {
      throw new IllegalStateException("The reader of " + table + " failed", readerFailure.get());
    }
    Arrays.sort(ackToReader);
    Arrays.sort(sendToReader);
    result("ack_to_reader_p50_ms", percentile(ackToReader, 0.50));
    result("ack_to_reader_p99_ms", percentile(ackToReader, 0.99));
    result("send_to_reader_p50_ms", percentile(sendToReader, 0.50));
    result("send_to_reader_p99_ms", percentile(sendToReader, 0.99));
  }

  /** Deletes a topic (the benchmark's drop of a table no later workload reads). */
  private static void deleteTopic(String bootstrap, String topic) throws Exception {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(properties)) {
      admin.deleteTopics(List.of(topic)).all().get();
    }
  }

  /** Creates the one-partition topic; an existing one is an error when {@code mustBeNew}. */
  private void createTopic(boolean mustBeNew) throws Exception {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(properties)) {
      admin.createTopics(List.of(new NewTopic(table, 1, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException) || mustBeNew) {
        throw e;
      }
    }
  }

  private Properties producerDefaults() {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    properties.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return properties;
  }

  private Properties consumerDefaults() {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    properties.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return properties;
  }

  private static String readString(ByteBuffer buffer) {
    int length = 0;
    int shift = 0;
    int b;
    do {
      b = buffer.get() & 0xff;
      length |= (b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    String value = new String(buffer.array(), buffer.position(), length, UTF_8);
    buffer.position(buffer.position() + length);
    return value;
  }

  /** Nearest-rank percentile of sorted, non-empty values, as the benchmarks compute theirs. */
  private static double percentile(double[] sorted, double fraction) {
    int rank = (int) Math.ceil(fraction * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static void result(String name, double value) {
    System.out.println("RESULT " + name + "=" + value);
  }

  private static String required(Map<String, String> arguments, String key) {
    String value = arguments.get(key);
    if (value == null) {
      throw new IllegalArgumentException("Missing argument " + key + "=...");
    }
    return value;
  }

  /**
   * The rows of the pool file the benchmark writes ({@code WideEvents.writePool}): a big-endian int
   * row count, then per row five longs, five ints, five doubles and five {@code writeUTF} strings.
   */
  private record Pool(long[][] longs, int[][] ints, double[][] doubles, String[][] strings) {
    static Pool read(Path file) throws IOException {
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
        int size = in.readInt();
        long[][] longs = new long[size][5];
        int[][] ints = new int[size][5];
        double[][] doubles = new double[size][5];
        String[][] strings = new String[size][5];
        for (int r = 0; r < size; r++) {
          for (int c = 0; c < 5; c++) {
            longs[r][c] = in.readLong();
          }
          for (int c = 0; c < 5; c++) {
            ints[r][c] = in.readInt();
          }
          for (int c = 0; c < 5; c++) {
            doubles[r][c] = in.readDouble();
          }
          for (int c = 0; c < 5; c++) {
            strings[r][c] = in.readUTF();
          }
        }
        return new Pool(longs, ints, doubles, strings);
      }
    }

    int size() {
      return longs.length;
    }

    /** Row {@code r} in the record value form of the class javadoc. */
    byte[] encode(int r) {
      byte[][] utf8 = new byte[5][];
      int length = NUMERIC_BYTES;
      for (int c = 0; c < 5; c++) {
        utf8[c] = strings[r][c].getBytes(UTF_8);
        length += varintLength(utf8[c].length) + utf8[c].length;
      }
      ByteBuffer value = ByteBuffer.allocate(length);
      for (int c = 0; c < 5; c++) {
        value.putLong(longs[r][c]);
      }
      for (int c = 0; c < 5; c++) {
        value.putInt(ints[r][c]);
      }
      for (int c = 0; c < 5; c++) {
        value.putDouble(doubles[r][c]);
      }
      for (int c = 0; c < 5; c++) {
        int remaining = utf8[c].length;
        while (remaining >= 0x80) {
          value.put((byte) ((remaining & 0x7f) | 0x80));
          remaining >>>= 7;
        }
        value.put((byte) remaining);
        value.put(utf8[c]);
      }
      return value.array();
    }

    private static int varintLength(int value) {
      int bytes = 1;
      while (value >= 0x80) {
        value >>>= 7;
        bytes++;
      }
      return bytes;
    }
  }
}
