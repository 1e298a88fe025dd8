package dev.pubsubclickhouse.messages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.core.evolve.ColumnAdder;
import dev.pubsubclickhouse.core.evolve.ColumnsUnavailableException;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.cdc.ChangeFormat;
import dev.pubsubclickhouse.messages.cdc.ChangeRow;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.payload.SchemaUnavailableException;
import dev.pubsubclickhouse.messages.tables.ColumnMapping;
import dev.pubsubclickhouse.messages.tables.Route;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a message into encoded rows: decompress, read the rows in the message's format (JSON, or
 * Avro or Protocol Buffers with its Pub/Sub schema, or a Debezium change event), add columns for
 * new fields when schema evolution is on, gather unknown fields into their column when one is
 * configured, add the {@code _pubsub_*} metadata columns the table has, encode (a column mapped to
 * {@code $data} or {@code $attributes.NAME} reading the message's {@link #messageObject}). A
 * message is written whole or not at all: when its data cannot be read or any of its rows does not
 * fit, the whole message is rejected, with the reason of each row that does not fit.
 */
public final class MessageEncoder {
  public static final String MESSAGE_ID = "_pubsub_message_id";
  public static final String PUBLISH_TIME = "_pubsub_publish_time";
  public static final String ATTRIBUTES = "_pubsub_attributes";
  public static final String ORDERING_KEY = "_pubsub_ordering_key";
  public static final String SUBSCRIPTION = "_pubsub_subscription";
  public static final String DELIVERY_ATTEMPT = "_pubsub_delivery_attempt";
  public static final String ROW_INDEX = "_pubsub_row_index";
  public static final String INGESTED_AT = "_ingested_at";

  /** Every column the service fills from the message's metadata when the table has it. */
  public static final Set<String> METADATA_COLUMNS =
      Set.of(
          MESSAGE_ID,
          PUBLISH_TIME,
          ATTRIBUTES,
          ORDERING_KEY,
          SUBSCRIPTION,
          DELIVERY_ATTEMPT,
          ROW_INDEX,
          INGESTED_AT);

  /** The most a message read outside a request may take: three quarters of the heap. */
  private static final long UNCHARGED_CEILING = Runtime.getRuntime().maxMemory() / 4 * 3;

  /** Row reasons named in one rejection; the rest are counted. */
  private static final int MAX_REASONS = 5;

  private final PayloadDecompressor decompressor;
  private final PayloadFormats formats;
  private final ColumnAdder columnAdder;
  private final String unknownFieldsColumn;
  private final MessageEvents events;
  private final Clock clock;

  /**
   * @param columnAdder adds columns for new fields; null when schema evolution is off
   * @param unknownFieldsColumn the column that receives the fields no other column takes; null for
   *     none
   */
  public MessageEncoder(
      PayloadDecompressor decompressor,
      PayloadFormats formats,
      ColumnAdder columnAdder,
      String unknownFieldsColumn,
      MessageEvents events,
      Clock clock) {
    this.decompressor = decompressor;
    this.formats = formats;
    this.columnAdder = columnAdder;
    this.unknownFieldsColumn = unknownFieldsColumn;
    this.events = events;
    this.clock = clock;
  }

  /**
   * The message read in its format and encoded for the table its route names: what the caller keeps
   * until the batch is written. {@code format} is null when the route rejects the message (its rows
   * are then the route's rejection, whatever the schema), {@code schema} when its data could not be
   * read.
   */
  public record Encoding(PayloadFormat format, TargetTable.Snapshot schema, EncodedRows rows) {}

  /**
   * Encodes a message for the table it is routed to, on the caller's thread. With schema evolution
   * on, a new field's column is added first, and the caller waits for it. What reading it takes
   * (its data decompressed, its rows) is charged to {@code memory} as it is taken, and given back
   * once the rows are encoded.
   *
   * @throws UnavailableException when the message's schema or a new field's column could not be had
   *     now
   * @throws MemoryCharge.Refusal when the memory it needs cannot be had now ({@link
   *     MemoryCharge.Refusal#mayPass()})
   */
  public Encoding encode(PubSubMessage message, Route route, MemoryCharge memory)
      throws UnavailableException, InterruptedException {
    Reading reading = new Reading(memory);
    try {
      return encode(message, route, reading);
    } finally {
      reading.giveBackAll();
    }
  }

  private Encoding encode(PubSubMessage message, Route route, Reading reading)
      throws UnavailableException, InterruptedException {
    if (route.isRejected()) {
      events.rowsRejected(1);
      return new Encoding(null, null, EncodedRows.rejected(route.rejection()));
    }
    PayloadFormat format;
    try {
      format = formats.of(message.attributes());
    } catch (SchemaUnavailableException e) {
      throw new UnavailableException(e.getMessage(), e);
    }
    TargetTable table = route.destination().table();
    TargetTable.Snapshot schema = table.current();
    Read read;
    List<JsonNode> rows;
    try {
      read = read(message, format, reading);
      rows = read.rows();
      reading.charge(metadataCost(message, rows.size(), schema.columns()));
    } catch (UnavailableException e) {
      throw e;
    } catch (MemoryCharge.Refusal e) {
      if (e.mayPass()) {
        throw e;
      }
      return new Encoding(format, schema, unreadable(e));
    } catch (IOException | PayloadRejectedException | RuntimeException e) {
      return new Encoding(format, schema, unreadable(e));
    }
    if (columnAdder != null) {
      try {
        schema = columnAdder.columnsFor(table, rows);
      } catch (ColumnsUnavailableException e) {
        throw new UnavailableException(e.getMessage(), e);
      }
    } else {
      schema = table.forRows(rows);
    }
    if (schema.encoder().readsMessage()) {
      try {
        reading.charge(messageObjectCost(read.payload(), rows.size()));
      } catch (MemoryCharge.Refusal e) {
        if (e.mayPass()) {
          throw e;
        }
        // Said, or a message of a few KiB refused as too large to read would puzzle its reader.
        events.rowsRejected(1);
        return new Encoding(
            format,
            schema,
            EncodedRows.rejected(dataInEveryRow(rows.size()) + ": " + e.getMessage()));
      }
    }
    return new Encoding(format, schema, encode(message, read, schema));
  }

  /**
   * The message's rows for {@code schema}, or why the message cannot be written. Never throws: an
   * unexpected failure of the encoder rejects this message, not its batch.
   */
  public EncodedRows encode(
      PubSubMessage message, PayloadFormat format, TargetTable.Snapshot schema) {
    Read read;
    try {
      read = read(message, format, new Reading(MemoryCharge.NONE));
    } catch (IOException | PayloadRejectedException | UnavailableException | RuntimeException e) {
      return unreadable(e);
    }
    // Outside a request nothing is charged, but $data in every row of a large array message can
    // still take more than the heap: refused as a request's reading is (RequestMemoryBudget).
    if (schema.encoder().readsMessage()) {
      long cost = messageObjectCost(read.payload(), read.rows().size());
      if (cost > UNCHARGED_CEILING) {
        events.rowsRejected(1);
        return EncodedRows.rejected(
            dataInEveryRow(read.rows().size())
                + " would take about "
                + (cost >> 20)
                + " MiB of memory, more than the "
                + (UNCHARGED_CEILING >> 20)
                + " MiB one message may take");
      }
    }
    return encode(message, read, schema);
  }

  private static String dataInEveryRow(int rows) {
    return "the message data ($data) copied into each of its " + rows + " rows";
  }

  /** Why the message's data cannot be read; an unexpected exception rejects it, not its batch. */
  private EncodedRows unreadable(Exception e) {
    events.rowsRejected(1);
    if (e instanceof RuntimeException && !(e instanceof MemoryCharge.Refusal)) {
      return EncodedRows.rejected("the message could not be read: " + e);
    }
    return EncodedRows.rejected(e.getMessage() == null ? e.toString() : e.getMessage());
  }

  /**
   * A message's rows, its data decompressed, which {@code $data} takes, and whether that data is a
   * binary encoding.
   */
  private record Read(List<JsonNode> rows, byte[] payload, boolean binary) {}

  /**
   * The rows. What reading them will take at least is charged as the data is decompressed, so that
   * a bomb is refused after a few MiB of its data; the format's own charges then take that first.
   */
  private Read read(PubSubMessage message, PayloadFormat format, Reading reading)
      throws IOException, PayloadRejectedException, UnavailableException {
    int advancePerByte = format.leastHeapPerByte();
    byte[] payload = decompressor.decompress(message.data(), reading, advancePerByte);
    if (payload != message.data()) {
      reading.prepaid((long) advancePerByte * payload.length);
    }
    events.payloadRead(payload.length);
    if (format instanceof ChangeFormat change) {
      // A change event is JSON: it is charged what a JSON parse of its data may take.
      reading.charge(JsonPayloads.heapBound(payload.length));
      return new Read(change.rows(payload, message), payload, false);
    }
    return new Read(format.rows(payload, reading), payload, format.binary());
  }

  /**
   * What {@code $data} takes: its text (two bytes a character at most, base64 a third more), and a
   * copy of it in every row's encoded bytes, which the output may hold twice as it grows.
   */
  private static long messageObjectCost(byte[] payload, int rows) {
    long text = 2L * payload.length * 4 / 3 + 64;
    return text + 2L * rows * text;
  }

  /**
   * The object {@code $data} and {@code $attributes.NAME} are paths in: {@code {"data": the data as
   * text, "attributes": {...}}}. The data is the payload decompressed, as UTF-8 text, or in base64
   * when it is a binary encoding (Avro's and Protocol Buffers'), whose bytes may be UTF-8 by chance
   * but are not text, or is not UTF-8; every row of a message takes all of it.
   */
  private static ObjectNode messageObject(PubSubMessage message, Read read) {
    byte[] payload = read.payload();
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.put(
        ColumnMapping.DATA,
        !read.binary() && Utf8Bytes.firstMalformed(payload) < 0
            ? new String(payload, StandardCharsets.UTF_8)
            : Base64.getEncoder().encodeToString(payload));
    ObjectNode attributes = object.putObject(ColumnMapping.ATTRIBUTES);
    message.attributes().forEach(attributes::put);
    return object;
  }

  /**
   * What the metadata fields take when each of {@code rows} gets them, and their encoded rows:
   * about 1 KiB a row (see JsonPayloads.MAX_ROWS), and every row's copy of the attributes when the
   * table has their column (a tree of them, then their bytes in the growing output, up to three
   * times).
   */
  private static long metadataCost(PubSubMessage message, int rows, Set<String> columns) {
    long perRow = 1024;
    if (columns.contains(ATTRIBUTES)) {
      for (Map.Entry<String, String> attribute : message.attributes().entrySet()) {
        perRow += 64 + 3L * (attribute.getKey().length() + attribute.getValue().length());
      }
    }
    return rows * perRow;
  }

  /**
   * What reading one message has charged, to give it all back once its rows are encoded (the tree
   * and the decompressed data are garbage then).
   */
  private static final class Reading implements MemoryCharge {
    private final MemoryCharge memory;
    private long charged;
    private long prepaid;

    Reading(MemoryCharge memory) {
      this.memory = memory;
    }

    /** {@code bytes} of what was charged are a reading's charges made ahead: they take it first. */
    void prepaid(long bytes) {
      prepaid = bytes;
    }

    @Override
    public void charge(long bytes) {
      long fromPrepaid = Math.min(prepaid, bytes);
      prepaid -= fromPrepaid;
      memory.charge(bytes - fromPrepaid);
      charged += bytes - fromPrepaid;
    }

    @Override
    public void giveBack(long bytes) {
      memory.giveBack(bytes);
      charged -= bytes;
    }

    void giveBackAll() {
      giveBack(charged);
    }
  }

  private EncodedRows encode(PubSubMessage message, Read read, TargetTable.Snapshot schema) {
    try {
      return encodeRows(message, read, schema);
    } catch (RuntimeException e) {
      events.rowsRejected(1);
      return EncodedRows.rejected("the message could not be encoded: " + e);
    }
  }

  private EncodedRows encodeRows(PubSubMessage message, Read read, TargetTable.Snapshot schema) {
    List<JsonNode> rows = read.rows();
    ObjectNode messageObject =
        schema.encoder().readsMessage() ? messageObject(message, read) : null;
    RowBinaryOutput out = new RowBinaryOutput(Math.max(64, message.data().length));
    String ingestedAt = clock.instant().toString();
    boolean keepUnknown =
        unknownFieldsColumn != null && schema.columns().contains(unknownFieldsColumn);
    List<String> reasons = new ArrayList<>(0);
    int rejected = 0;
    for (int i = 0; i < rows.size(); i++) {
      ObjectNode row = (ObjectNode) rows.get(i);
      if (keepUnknown) {
        gatherUnknownFields(row, schema);
      }
      addMetadata(row, i, message, schema.columns(), ingestedAt);
      boolean deleted = false;
      if (row instanceof ChangeRow change) {
        change.addMetadata(schema, ingestedAt);
        deleted = change.deleted();
      }
      try {
        schema.encoder().encode(row, messageObject, out, deleted);
      } catch (RowRejectedException e) {
        rejected++;
        String reason = row instanceof ChangeRow change ? change.explain(e) : e.getMessage();
        if (reasons.size() < MAX_REASONS) {
          reasons.add(rows.size() > 1 ? "row " + i + ": " + reason : reason);
        }
      }
    }
    if (rejected > 0) {
      events.rowsRejected(rejected);
      if (rejected > reasons.size()) {
        reasons.add("and " + (rejected - reasons.size()) + " more rows");
      }
      return EncodedRows.rejected(String.join("; ", reasons));
    }
    events.rowsRead(rows.size());
    return EncodedRows.of(out.toByteArray(), 0, out.size(), rows.size());
  }

  /**
   * Copies the fields no column takes into one object in the unknown-fields column (an empty one
   * when there are none), so that none is dropped silently. A field of the same name as that column
   * is one of them: the column is the service's to fill.
   */
  private void gatherUnknownFields(ObjectNode row, TargetTable.Snapshot schema) {
    JsonNode own = row.remove(unknownFieldsColumn);
    List<String> unplaced = schema.encoder().unplacedFields(row);
    ObjectNode unknown = JsonNodeFactory.instance.objectNode();
    for (String name : unplaced) {
      unknown.set(name, row.get(name));
    }
    if (own != null) {
      unknown.set(unknownFieldsColumn, own);
    }
    row.set(unknownFieldsColumn, unknown);
  }

  /**
   * The message as a dead letter: its data and attributes as published, where it came from, and
   * why. The dead-letter table shows the data decompressed when it was compressed, unless it
   * expands beyond {@link #readableLimit}: the data is then kept as published.
   */
  public DeadLetter deadLetter(PubSubMessage message, String identity, String reason) {
    byte[] readable;
    try {
      readable =
          decompressor.decompress(message.data(), MemoryCharge.atMost(readableLimit(message)), 0);
    } catch (IOException | RuntimeException e) {
      readable = message.data();
    }
    Map<String, String> origin = new LinkedHashMap<>();
    putPresent(origin, DeadLetter.MESSAGE_ID, message.messageId());
    putPresent(origin, DeadLetter.PUBLISH_TIME, message.publishTime());
    putPresent(origin, DeadLetter.SUBSCRIPTION, message.subscription());
    putPresent(origin, DeadLetter.ORDERING_KEY, message.orderingKey());
    if (message.deliveryAttempt() != null) {
      origin.put(DeadLetter.DELIVERY_ATTEMPT, message.deliveryAttempt().toString());
    }
    return DeadLetter.builder()
        .identity(identity)
        .data(message.data())
        .payload(readable)
        .attributes(message.attributes())
        .origin(origin)
        .reason(reason)
        .failedAt(clock.instant())
        .build();
  }

  /**
   * What decompressing a dead letter may take: four times its data, and at least 64 KiB. Dead
   * letters are made on the batch's thread outside any request's memory budget, all of a batch at
   * once, so a bomb of 900 bytes that expands to 900 KiB must not cost that much again there.
   */
  private static long readableLimit(PubSubMessage message) {
    return Math.max(64 << 10, 4L * message.data().length);
  }

  private static void addMetadata(
      ObjectNode row, int index, PubSubMessage message, Set<String> columns, String ingestedAt) {
    // An absent id or publish time (an unwrapped push without metadata) is left to the column's
    // DEFAULT: an empty id would make every such message the same one to a ReplacingMergeTree.
    putText(row, columns, MESSAGE_ID, message.messageId());
    putText(row, columns, PUBLISH_TIME, message.publishTime());
    putText(row, columns, ORDERING_KEY, orEmpty(message.orderingKey()));
    putText(row, columns, SUBSCRIPTION, orEmpty(message.subscription()));
    if (columns.contains(DELIVERY_ATTEMPT)) {
      // Pub/Sub sends it only when the subscription has a dead-letter policy: 0 means unknown.
      row.put(DELIVERY_ATTEMPT, message.deliveryAttempt() == null ? 0 : message.deliveryAttempt());
    }
    if (columns.contains(ROW_INDEX)) {
      // The row's place in its message, the same on every delivery: with the message id and the
      // subscription it keys a row, so that redelivered copies collapse (ReplacingMergeTree).
      row.put(ROW_INDEX, index);
    }
    if (columns.contains(ATTRIBUTES)) {
      ObjectNode attributes = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, String> attribute : message.attributes().entrySet()) {
        attributes.put(attribute.getKey(), attribute.getValue());
      }
      row.set(ATTRIBUTES, attributes);
    }
    putText(row, columns, INGESTED_AT, ingestedAt);
  }

  /** Only what the message has: an absent value and an empty one are both "none" to Pub/Sub. */
  private static void putPresent(Map<String, String> origin, String key, String value) {
    if (value != null && !value.isEmpty()) {
      origin.put(key, value);
    }
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  private static void putText(ObjectNode row, Set<String> columns, String column, String value) {
    if (value != null && columns.contains(column)) {
      row.put(column, value);
    }
  }
}
