package dev.pubsubclickhouse.function.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.envelope.PayloadDecompressor;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a message into encoded rows: decompress, read the JSON rows, add the {@code _pubsub_*}
 * metadata columns the table has, encode. A message is written whole or not at all: when its data
 * cannot be read or any of its rows does not fit, the whole message is rejected, with the reason of
 * each row that does not fit.
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

  /** Row reasons named in one rejection; the rest are counted. */
  private static final int MAX_REASONS = 5;

  private final PayloadDecompressor decompressor;
  private final Metrics metrics;
  private final Clock clock;

  public MessageEncoder(PayloadDecompressor decompressor, Metrics metrics, Clock clock) {
    this.decompressor = decompressor;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** A message waiting for its batch, encoded for {@code schema} on the caller's thread. */
  public PendingMessage pending(PushMessage message, TargetTable.Snapshot schema) {
    return new PendingMessage(message, this, schema);
  }

  /**
   * The message's rows for {@code schema}, or why the message cannot be written. Never throws: an
   * unexpected failure of the encoder rejects this message, not its batch.
   */
  public EncodedRows encode(PushMessage message, TargetTable.Snapshot schema) {
    try {
      return encodeRows(message, schema);
    } catch (RuntimeException e) {
      metrics.rowsParseFailed.increment();
      return EncodedRows.rejected("the message could not be encoded: " + e);
    }
  }

  private EncodedRows encodeRows(PushMessage message, TargetTable.Snapshot schema) {
    List<JsonNode> rows;
    try {
      byte[] payload = decompressor.decompress(message.data());
      metrics.messagePayloadBytes.record(payload.length);
      rows = JsonPayloads.rows(payload);
    } catch (IOException | PayloadRejectedException e) {
      metrics.rowsParseFailed.increment();
      return EncodedRows.rejected(e.getMessage() == null ? e.toString() : e.getMessage());
    }
    RowBinaryOutput out = new RowBinaryOutput(Math.max(64, message.data().length));
    String ingestedAt = clock.instant().toString();
    List<String> reasons = new ArrayList<>(0);
    int rejected = 0;
    for (int i = 0; i < rows.size(); i++) {
      ObjectNode row = (ObjectNode) rows.get(i);
      addMetadata(row, i, message, schema.columns(), ingestedAt);
      try {
        schema.encoder().encode(row, out);
      } catch (RowRejectedException e) {
        rejected++;
        if (reasons.size() < MAX_REASONS) {
          reasons.add(rows.size() > 1 ? "row " + i + ": " + e.getMessage() : e.getMessage());
        }
      }
    }
    if (rejected > 0) {
      metrics.rowsParseFailed.add(rejected);
      if (rejected > reasons.size()) {
        reasons.add("and " + (rejected - reasons.size()) + " more rows");
      }
      return EncodedRows.rejected(String.join("; ", reasons));
    }
    metrics.rowsParsedOk.add(rows.size());
    return EncodedRows.of(out.toByteArray(), 0, out.size(), rows.size());
  }

  /**
   * The message as a dead letter: its data and attributes as published, where it came from, and
   * why. The dead-letter table shows the data decompressed when it was compressed.
   */
  DeadLetter deadLetter(PushMessage message, String identity, String reason) {
    byte[] readable;
    try {
      readable = decompressor.decompress(message.data());
    } catch (IOException | RuntimeException e) {
      readable = message.data();
    }
    Map<String, String> origin = new LinkedHashMap<>();
    origin.put("messageId", String.valueOf(message.messageId()));
    origin.put("publishTime", String.valueOf(message.publishTime()));
    origin.put("subscription", String.valueOf(message.subscription()));
    origin.put("deliveryAttempt", String.valueOf(message.deliveryAttempt()));
    return new DeadLetter(
        identity, message.data(), readable, message.attributes(), origin, reason, clock.instant());
  }

  private static void addMetadata(
      ObjectNode row, int index, PushMessage message, Set<String> columns, String ingestedAt) {
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

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  private static void putText(ObjectNode row, Set<String> columns, String column, String value) {
    if (value != null && columns.contains(column)) {
      row.put(column, value);
    }
  }
}
